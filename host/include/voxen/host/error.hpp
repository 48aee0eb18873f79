#pragma once
// Errors that cross Voxen's API boundary. Every Vulkan call goes through VOXEN_VK_CHECK so
// that a failing VkResult becomes an exception that says which call failed and where.
#include <vulkan/vulkan_core.h>

#include <stdexcept>
#include <string>

namespace voxen {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class VulkanError : public Error {
 public:
  VulkanError(VkResult result, const std::string& message) : Error(message), result_(result) {}
  VkResult result() const { return result_; }

 private:
  VkResult result_;
};

// Thrown when a buffer cannot be placed in device (or host-visible) memory. The message
// names the buffer, its size and the heap's size and current use.
class OutOfDeviceMemoryError : public VulkanError {
 public:
  using VulkanError::VulkanError;
};

const char* vkResultName(VkResult result);

[[noreturn]] void throwVkError(VkResult result, const char* expression, const char* file, int line);

// The shortest text that reads back as the same double (for numbers in error messages).
std::string formatNumber(double value);

inline void checkVk(VkResult result, const char* expression, const char* file, int line) {
  if (result != VK_SUCCESS) throwVkError(result, expression, file, line);
}

}  // namespace voxen

#define VOXEN_VK_CHECK(expr) ::voxen::checkVk((expr), #expr, __FILE__, __LINE__)

// FeatureError is a SettingError (the device to choose is a setting): declared there, and
// reachable through this header as before.
#include "voxen/host/setting_error.hpp"

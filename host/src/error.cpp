#include "voxen/host/error.hpp"

#include <charconv>
#include <filesystem>

namespace voxen {

const char* vkResultName(VkResult result) {
  switch (result) {
#define VOXEN_RESULT_CASE(r) \
  case r:                    \
    return #r;
    VOXEN_RESULT_CASE(VK_SUCCESS)
    VOXEN_RESULT_CASE(VK_NOT_READY)
    VOXEN_RESULT_CASE(VK_TIMEOUT)
    VOXEN_RESULT_CASE(VK_EVENT_SET)
    VOXEN_RESULT_CASE(VK_EVENT_RESET)
    VOXEN_RESULT_CASE(VK_INCOMPLETE)
    VOXEN_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    VOXEN_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VOXEN_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    VOXEN_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    VOXEN_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    VOXEN_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    VOXEN_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    VOXEN_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    VOXEN_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    VOXEN_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    VOXEN_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VOXEN_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    VOXEN_RESULT_CASE(VK_ERROR_UNKNOWN)
    VOXEN_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    VOXEN_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VOXEN_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    VOXEN_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
#undef VOXEN_RESULT_CASE
    default:
      return "VK_RESULT_UNKNOWN";
  }
}

void throwVkError(VkResult result, const char* expression, const char* file, int line) {
  const std::string where = std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  const std::string message = std::string(expression) + " failed with " + vkResultName(result) + " (" + where + ")";
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
    throw OutOfDeviceMemoryError(result, message);
  throw VulkanError(result, message);
}

std::string formatNumber(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

}  // namespace voxen

#pragma once
// GLFW's library, a window without a client API, and the Vulkan surface on it, each
// released in the right order by its destructor. GLFW's own error text goes into the
// exceptions, so "no DISPLAY" reads as that rather than as a failed call.
#include <cstdint>
#include <string>
#include <vector>

#include "sample_window/glfw_include.hpp"

namespace voxen {
class Device;
}

namespace voxen_samples {

class GlfwLibrary {
 public:
  GlfwLibrary();
  ~GlfwLibrary();
  GlfwLibrary(const GlfwLibrary&) = delete;
  GlfwLibrary& operator=(const GlfwLibrary&) = delete;
  // The instance extensions a surface on this display needs (glfwGetRequiredInstanceExtensions).
  std::vector<std::string> requiredInstanceExtensions() const;
  static std::string lastError();
};

class GlfwWindow {
 public:
  GlfwWindow(uint32_t width, uint32_t height, const std::string& title);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;
  GLFWwindow* handle() const { return window_; }
  VkExtent2D framebufferSize() const;

 private:
  GLFWwindow* window_ = nullptr;
};

class WindowSurface {
 public:
  WindowSurface(voxen::Device& device, const GlfwWindow& window);
  ~WindowSurface();
  WindowSurface(const WindowSurface&) = delete;
  WindowSurface& operator=(const WindowSurface&) = delete;
  VkSurfaceKHR handle() const { return surface_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
};

}  // namespace voxen_samples

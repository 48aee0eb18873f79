#include "sample_window/glfw_window.hpp"

#include <algorithm>

#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"

namespace voxen_samples {

using voxen::Error;

namespace {

std::string& lastGlfwError() {
  static std::string text;
  return text;
}

void recordGlfwError(int code, const char* description) {
  lastGlfwError() = std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

}  // namespace

std::string GlfwLibrary::lastError() { return lastGlfwError().empty() ? "no error text from GLFW" : lastGlfwError(); }

GlfwLibrary::GlfwLibrary() {
  glfwSetErrorCallback(recordGlfwError);
  if (!glfwInit()) throw Error("cannot open a window: " + lastError() + " (is DISPLAY set? For tests: xvfb-run -a)");
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    throw Error("GLFW finds no Vulkan loader that can present to this display: " + lastError());
  }
}

GlfwLibrary::~GlfwLibrary() { glfwTerminate(); }

std::vector<std::string> GlfwLibrary::requiredInstanceExtensions() const {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (!names) throw Error("GLFW cannot create Vulkan surfaces on this display: " + lastError());
  return std::vector<std::string>(names, names + count);
}

GlfwWindow::GlfwWindow(uint32_t width, uint32_t height, const std::string& title) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // Vulkan presents; no OpenGL context
  window_ = glfwCreateWindow(int(width), int(height), title.c_str(), nullptr, nullptr);
  if (!window_) throw Error("cannot create a " + std::to_string(width) + "x" + std::to_string(height) + " window: " +
                            GlfwLibrary::lastError());
}

GlfwWindow::~GlfwWindow() { glfwDestroyWindow(window_); }

VkExtent2D GlfwWindow::framebufferSize() const {
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  return {uint32_t(std::max(width, 0)), uint32_t(std::max(height, 0))};
}

WindowSurface::WindowSurface(voxen::Device& device, const GlfwWindow& window) : instance_(device.instance()) {
  VOXEN_VK_CHECK(glfwCreateWindowSurface(instance_, window.handle(), nullptr, &surface_));
}

WindowSurface::~WindowSurface() { vkDestroySurfaceKHR(instance_, surface_, nullptr); }

}  // namespace voxen_samples

#pragma once
// The device, shader library and scheduler every mode runs on, built from the command line:
// device selection, validation, and hot reload of shaders/ (the window turns it on by
// default so that an edit to shaders/painter/*.glsl shows in the running window).
#include <string>
#include <vector>

#include "app_options.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxel_painter {

struct GpuContext {
  // Extensions are the window's surface and swapchain extensions (none headless).
  GpuContext(const AppOptions& options, bool hotReloadByDefault, std::vector<std::string> instanceExtensions = {},
             std::vector<std::string> deviceExtensions = {});
  // Non-zero when validation is on and reported anything: tests treat that as failure.
  uint64_t validationMessages() const { return device.validationEnabled() ? device.validationMessageCount() : 0; }

  voxen::Device device;
  voxen::ShaderLibrary library;
  voxen::Scheduler scheduler;
};

}  // namespace voxel_painter

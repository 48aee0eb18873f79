#pragma once
// The device, shader library and scheduler every mode runs on, built from the command line:
// device selection, validation, and hot reload of shaders/ (the window turns it on by
// default so that an edit to shaders/painter/*.glsl shows in the running window).
#include <string>
#include <vector>

#include "app_options.hpp"
#include "sample_common/sample_gpu.hpp"

namespace voxel_painter {

// SampleGpu (samples/common) for --device, --validation, --sync-validation and hot reload.
struct GpuContext : voxen_samples::SampleGpu {
  // Extensions are the window's surface and swapchain extensions (none headless).
  GpuContext(const AppOptions& options, bool hotReloadByDefault, std::vector<std::string> instanceExtensions = {},
             std::vector<std::string> deviceExtensions = {});
};

}  // namespace voxel_painter

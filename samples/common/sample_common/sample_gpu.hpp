#pragma once
// The device, shader library and scheduler a sample runs on, built from its command line
// (--device, --validation) and, in a window, the window system's extensions.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen_samples {

// DeviceOptions for --device `selector` and --validation, with a window's instance
// extensions (its surface) and device extensions (the swapchain); none headless.
voxen::DeviceOptions sampleDeviceOptions(std::string selector, bool validation,
                                         std::vector<std::string> instanceExtensions = {},
                                         std::vector<std::string> deviceExtensions = {});

struct SampleGpu {
  // Says on stderr which device `program` runs on, and whether validation is on.
  SampleGpu(const std::string& program, voxen::DeviceOptions deviceOptions, voxen::ShaderLibraryOptions libraryOptions = {});
  // Non-zero when validation is on and reported anything: tests treat that as failure.
  uint64_t validationMessages() const { return device.validationEnabled() ? device.validationMessageCount() : 0; }

  voxen::Device device;
  voxen::ShaderLibrary library;
  voxen::Scheduler scheduler;
};

}  // namespace voxen_samples

#include "sample_common/sample_gpu.hpp"

#include <iostream>
#include <utility>

namespace voxen_samples {

voxen::DeviceOptions sampleDeviceOptions(std::string selector, bool validation, std::vector<std::string> instanceExtensions,
                                         std::vector<std::string> deviceExtensions) {
  voxen::DeviceOptions options;
  options.selector = std::move(selector);
  options.validation = validation;
  options.instanceExtensions = std::move(instanceExtensions);
  options.deviceExtensions = std::move(deviceExtensions);
  return options;
}

SampleGpu::SampleGpu(const std::string& program, voxen::DeviceOptions deviceOptions, voxen::ShaderLibraryOptions libraryOptions)
    : device(std::move(deviceOptions)), library(device, std::move(libraryOptions)), scheduler(device, library) {
  std::cerr << program << ": device " << device.info().name << (device.validationEnabled() ? " (validation on)" : "") << "\n";
}

}  // namespace voxen_samples

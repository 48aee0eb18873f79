#include "commands/export_device.hpp"

#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

ExportDevice::ExportDevice(const CommonOptions& common) {
  const std::string word = deviceWord(common);
  const bool leftToAuto = (word.empty() || word == "auto") && !common.given.count("--validation");
  if (!leftToAuto) {
    context_.emplace(common.contextOptions());
    description_ = "the GPU (" + context_->deviceInfo().name + ")";
    return;
  }
  try {
    context_.emplace(common.contextOptions());
  } catch (const Error& e) {
    cpu_ = true;
    description_ = std::string("the CPU reference (--device auto: no Vulkan device opened: ") + e.what() + ")";
    return;
  }
  if (context_->deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    cpu_ = true;
    description_ = "the CPU reference (--device auto: " + context_->deviceInfo().name +
                   " is a CPU driver, where the CPU reference is faster; --device gpu forces it)";
    return;
  }
  description_ = "the GPU (" + context_->deviceInfo().name + ")";
}

void refuseDeviceFlags(const CommonOptions& common, const std::string& why) {
  for (const char* flag : {"--device", "--validation"})
    if (common.given.count(flag)) throw UsageError(std::string(flag) + " has no effect here: " + why);
}

}  // namespace voxen::cli

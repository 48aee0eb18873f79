#include "gpu_context.hpp"

#include <cstdlib>
#include <filesystem>
#include <utility>

namespace voxel_painter {

namespace {

voxen::DeviceOptions deviceOptions(const AppOptions& o, std::vector<std::string> instanceExtensions,
                                   std::vector<std::string> deviceExtensions) {
  voxen::DeviceOptions options =
      voxen_samples::sampleDeviceOptions(o.device, o.validation, std::move(instanceExtensions), std::move(deviceExtensions));
  options.synchronizationValidation = o.syncValidation;
  return options;
}

voxen::ShaderLibraryOptions libraryOptions(const AppOptions& o, bool hotReloadByDefault) {
  voxen::ShaderLibraryOptions options;
  if (o.noHotReload) return options;
  if (o.hotReloadDir) {
    options.hotReloadDir = o.hotReloadDir->empty() ? std::string(VOXEN_SOURCE_SHADER_DIR) : *o.hotReloadDir;
    return options;
  }
  // By default, watch the source tree this binary was built from, if it is still there (an
  // installed copy elsewhere runs the embedded shaders). VOXEN_SHADER_DIR, when set, wins:
  // the library reads it itself when hotReloadDir is left unset.
  if (hotReloadByDefault && !std::getenv("VOXEN_SHADER_DIR") &&
      std::filesystem::is_directory(VOXEN_SOURCE_SHADER_DIR "/painter"))
    options.hotReloadDir = std::string(VOXEN_SOURCE_SHADER_DIR);
  return options;
}

}  // namespace

GpuContext::GpuContext(const AppOptions& options, bool hotReloadByDefault, std::vector<std::string> instanceExtensions,
                       std::vector<std::string> deviceExtensions)
    : SampleGpu("voxel_painter", deviceOptions(options, std::move(instanceExtensions), std::move(deviceExtensions)),
                libraryOptions(options, hotReloadByDefault)) {}

}  // namespace voxel_painter

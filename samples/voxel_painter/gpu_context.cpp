#include "gpu_context.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "voxen_apps/shader_source_dir.hpp"

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
    if (!o.hotReloadDir->empty()) {
      options.hotReloadDir = *o.hotReloadDir;
      return options;
    }
    // Bare --hot-reload: the source tree's shaders/, or a bundle's copy beside the executable.
    const voxen::apps::ShaderSourceDir found = voxen::apps::findShaderSourceDir(VOXEN_SOURCE_SHADER_DIR);
    if (!found.dir)
      throw std::runtime_error("--hot-reload: no shader source folder (looked at " + found.looked +
                               "); name one with --hot-reload=DIR");
    options.hotReloadDir = *found.dir;
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

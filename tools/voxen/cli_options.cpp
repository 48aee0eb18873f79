#include "cli_options.hpp"

namespace voxen::cli {

ShaderLibraryOptions CommonOptions::libraryOptions() const {
  ShaderLibraryOptions options;
  if (hotReloadDir) options.hotReloadDir = hotReloadDir->empty() ? std::string(VOXEN_SOURCE_SHADER_DIR) : *hotReloadDir;
  return options;
}

void addCommonOptions(CLI::App& command, CommonOptions& options) {
  const std::string group = "Options for every command";
  command.add_option("--device", options.device.selector,
                     "device index or name substring (default: $VOXEN_DEVICE, then discrete GPU > integrated GPU > "
                     "CPU driver)")
      ->type_name("SEL")
      ->group(group);
  command.add_flag("--validation", options.device.validation, "Vulkan validation layer on (also VOXEN_VALIDATION=1)")
      ->group(group);
  command.add_flag("--profile", options.profile, "print GPU time per pass at the end")->group(group);
  command.add_flag("--json", options.json, "machine-readable output where the command supports it")->group(group);
  // A flag, not an option with an optional value: the folder is only ever given after '=',
  // so `--hot-reload MAP.vxm` leaves the map file to the command.
  command
      .add_flag("--hot-reload{}", options.hotReloadDir,
                "compile shaders from DIR (default: the source tree's shaders/) and reload them when they change "
                "(also VOXEN_SHADER_DIR=DIR)")
      ->type_name("[=DIR]")
      ->group(group);
}

}  // namespace voxen::cli

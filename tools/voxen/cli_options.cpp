#include "cli_options.hpp"

#include "option_checks.hpp"
#include "voxen_apps/shader_source_dir.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen::cli {

ShaderLibraryOptions CommonOptions::libraryOptions() const {
  ShaderLibraryOptions options;
  if (!hotReloadDir) return options;
  if (!hotReloadDir->empty()) {
    options.hotReloadDir = *hotReloadDir;
    return options;
  }
  // Bare --hot-reload: the source tree's shaders/, or a bundle's copy beside the executable.
  const apps::ShaderSourceDir found = apps::findShaderSourceDir(VOXEN_SOURCE_SHADER_DIR);
  if (!found.dir)
    throw UsageError("--hot-reload: no shader source folder (looked at " + found.looked +
                     "); name one with --hot-reload=DIR");
  options.hotReloadDir = *found.dir;
  return options;
}

uint64_t CommonOptions::memoryBudgetBytes() const {
  return memoryBudgetMb ? *memoryBudgetMb << 20 : defaultMemoryBudgetBytes();
}

std::string CommonOptions::memoryBudgetHint() const {
  return "raise --memory-budget (now " + std::to_string(memoryBudgetBytes() >> 20) + " MB)";
}

MapLoadOptions budgetedLoad(const CommonOptions& options) {
  MapLoadOptions load;
  load.memoryBudgetBytes = options.memoryBudgetBytes();
  load.budgetHint = options.memoryBudgetHint();
  return load;
}

namespace {
const std::string kCommonGroup = "Options for every command";
}

bool hasCommonJsonFlag(const CLI::App* command) {
  const CLI::Option* json = command ? command->get_option_no_throw("--json") : nullptr;
  return !command || (json && json->get_group() == kCommonGroup);
}

void addCommonOptions(CLI::App& command, CommonOptions& options) {
  const std::string& group = kCommonGroup;
  command.add_option("--device", options.device.selector,
                     "device index or name substring (default: $VOXEN_DEVICE, then discrete GPU > integrated GPU > "
                     "CPU driver)")
      ->type_name("SEL")
      ->group(group);
  command.add_flag("--validation", options.device.validation, "Vulkan validation layer on (also VOXEN_VALIDATION=1)")
      ->group(group);
  command.add_flag("--profile", options.profile, "print GPU time per pass at the end")->group(group);
  // A command with a --json of its own (bench all --json FILE) keeps it: it writes its
  // summary to that file, and its errors are text.
  if (!command.get_option_no_throw("--json"))
    command.add_flag("--json", options.json, "machine-readable output where the command supports it")->group(group);
  // A flag, not an option with an optional value: the folder is only ever given after '=',
  // so `--hot-reload MAP.vxm` leaves the map file to the command.
  command
      .add_flag("--hot-reload{}", options.hotReloadDir,
                "compile shaders from DIR (default: the source tree's shaders/, else the shaders/ beside the "
                "executable, as in a bundle) and reload them when they change "
                "(also VOXEN_SHADER_DIR=DIR)")
      ->type_name("[=DIR]")
      ->group(group);
  // The budget is stated before the command starts: maps, render grids and the GPU region
  // cache are sized against it up front, and a map that would grow past it stops with an
  // error naming what needed the memory.
  command.add_option("--memory-budget", options.memoryBudgetMb,
                     "host memory in MiB for maps, render grids and the GPU region cache; sizes are checked against "
                     "it before allocating (default: a quarter of physical memory, at most 2048: " +
                         std::to_string(defaultMemoryBudgetBytes() >> 20) + " here)")
      ->type_name("MB")
      ->check(integerIn(16, int64_t(1) << 24))
      ->group(group);
}

}  // namespace voxen::cli

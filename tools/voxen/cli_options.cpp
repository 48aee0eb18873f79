#include "cli_options.hpp"

#include <cctype>

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

ContextOptions CommonOptions::contextOptions() const {
  ContextOptions context;
  // 'auto' and 'gpu' (any case) are words, not names: the best device. (voxen map reads them
  // as where to map: MappingBackend; a device with either in its name is chosen by its index.)
  std::string word = device.selector;
  for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
  context.device = word == "auto" || word == "gpu" ? DeviceChoice::best() : DeviceChoice::parse(device.selector);
  context.validation = device.validation;
  context.synchronizationValidation = device.synchronizationValidation;
  context.onValidationMessage = device.onValidationMessage;
  context.hotReloadDir = libraryOptions().hotReloadDir;
  context.memoryBudgetBytes = memoryBudgetBytes();
  context.memoryHint = memoryBudgetHint();
  return context;
}

uint64_t CommonOptions::memoryBudgetBytes() const {
  return memoryBudgetMb ? *memoryBudgetMb << 20 : defaultMemoryBudgetBytes();
}

std::string CommonOptions::memoryBudgetHint() const {
  return "raise --memory-budget (now " + std::to_string(memoryBudgetBytes() >> 20) + " MB)";
}

void CommonOptions::refuseWith(std::initializer_list<const char*> flags, const std::string& other,
                               const std::string& why) const {
  for (const char* flag : flags)
    if (given.count(flag)) throw UsageError(std::string(flag) + " has no effect with " + other + " (" + why + ")");
}

std::string deviceWord(const CommonOptions& options) {
  std::string word = options.device.selector;
  for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

bool deviceLeftToAuto(const CommonOptions& options) {
  const std::string word = deviceWord(options);
  if (!word.empty() && word != "auto") return false;
  return !options.given.count("--validation") && !options.given.count("--hot-reload");
}

MapLoadOptions budgetedLoad(const CommonOptions& options) {
  MapLoadOptions load;
  load.memoryBudgetBytes = options.memoryBudgetBytes();
  load.budgetHint = options.memoryBudgetHint();
  return load;
}

namespace {

struct CommonFlag {
  const char* name;
  Uses use;
  bool takesValue;      // a value always (--device SEL), or at most after '=' (--hot-reload=DIR)
  const char* refusal;  // why a command that does not act on it refuses it, after the command's name
};

const CommonFlag kCommonFlags[] = {
    {"--device", Uses::Device, true, "opens no Vulkan device"},
    {"--validation", Uses::Device, false, "opens no Vulkan device"},
    {"--profile", Uses::Profile, false, "does not report GPU time per pass"},
    {"--json", Uses::Json, false, "has no JSON output"},
    {"--hot-reload", Uses::HotReload, false, "compiles no shaders"},
    {"--memory-budget", Uses::MemoryBudget, true, "sizes nothing against a memory budget"},
};

// A common flag the command does not act on: declared all the same, hidden from its help, so
// that giving it is refused with the reason while the command line is parsed (before a
// missing required flag is reported) rather than as an unknown option.
void refuseCommonFlag(CLI::App& command, const CommonFlag& flag, const std::string& name, Uses used) {
  const std::string reason = flag.use == Uses::Profile && uses(used, Uses::ProfileAlways)
                                 ? "voxen " + name + " always reports its GPU time per pass; --profile adds nothing"
                                 : "voxen " + name + " " + flag.refusal;
  command
      .add_option(flag.name,
                  [reason, flag](const CLI::results_t&) -> bool { throw CLI::ValidationError(flag.name, reason); },
                  "")
      ->expected(flag.takesValue ? 1 : 0, 1)
      ->group("");
}

const std::string kCommonGroup = "Options for every command";

}  // namespace

bool declaresOwnJson(const CLI::App* command) {
  const CLI::Option* json = command ? command->get_option_no_throw("--json") : nullptr;
  // The common flag is in the common group, its refusal hidden (group ""); anything else is
  // the command's own.
  return json && json->get_group() != kCommonGroup && !json->get_group().empty();
}

void addCommonOptions(CLI::App& command, const std::string& name, CommonOptions& options, Uses used) {
  const std::string& group = kCommonGroup;
  auto declared = [&](Uses use) { return uses(used, use); };
  // A command that declared one of these flags itself (bench all --json FILE) keeps its own.
  auto ownFlag = [&](const char* flag) { return command.get_option_no_throw(flag) != nullptr; };
  for (const CommonFlag& flag : kCommonFlags)
    if (!declared(flag.use) && !ownFlag(flag.name)) refuseCommonFlag(command, flag, name, used);
  if (declared(Uses::Device)) {
    command.add_option("--device", options.device.selector,
                       "device index or name substring; 'auto' (the default) or 'gpu' for the best one: $VOXEN_DEVICE, "
                       "then discrete GPU > integrated GPU > CPU driver (voxen map: 'auto' maps a small input on the CPU "
                       "reference, 'gpu' and a device's index or name always on the GPU; a device with 'auto' or 'gpu' in "
                       "its name is chosen by its index)")
        ->type_name("SEL")
        ->group(group);
    command.add_flag("--validation", options.device.validation, "Vulkan validation layer on (also VOXEN_VALIDATION=1)")
        ->group(group);
  }
  if (declared(Uses::Profile)) command.add_flag("--profile", options.profile, "print GPU time per pass at the end")->group(group);
  if (declared(Uses::Json) && !ownFlag("--json"))
    command.add_flag("--json", options.json, "print the summary (or the error) as one JSON object on stdout")->group(group);
  // A flag, not an option with an optional value: the folder is only ever given after '=',
  // so `--hot-reload MAP.vxm` leaves the map file to the command.
  if (declared(Uses::HotReload))
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
  if (declared(Uses::MemoryBudget))
    command
        .add_option("--memory-budget", options.memoryBudgetMb,
                    "host memory in MiB for maps, render grids and the GPU region cache; sizes are checked against "
                    "it before allocating (default: a quarter of physical memory, at most 2048: " +
                        std::to_string(defaultMemoryBudgetBytes() >> 20) + " here)")
        ->type_name("MB")
        ->check(integerIn(16, int64_t(1) << 24))
        ->group(group);
}

void noteCommonOptions(const CLI::App& command, CommonOptions& options) {
  options.given.clear();
  for (const CommonFlag& flag : kCommonFlags)
    if (command.count(flag.name) > 0) options.given.insert(flag.name);
}

}  // namespace voxen::cli

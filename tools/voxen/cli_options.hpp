#pragma once
// The flags common to the voxen commands (--device, --validation, --profile, --json,
// --hot-reload[=DIR], --memory-budget MB), declared on each command that acts on them so that
// `voxen <command> --help` shows them; a command that does not act on one refuses it by name.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

// A command line the tool cannot act on: reported with exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The common flags a command acts on (its CommandRegistration says which). Each of the
// others is refused by name when given, never silently ignored.
enum class Uses : unsigned {
  Nothing = 0,
  Device = 1,          // --device, --validation: it opens a Vulkan device
  HotReload = 2,       // --hot-reload: it compiles shaders
  Profile = 4,         // --profile: it prints GPU time per pass (or host stage times) when asked
  ProfileAlways = 8,   // it prints GPU time per pass anyway: --profile is refused as adding nothing
  Json = 16,           // --json: it has a JSON summary
  MemoryBudget = 32,   // --memory-budget: it sizes what it allocates against the budget
  Gpu = Device | HotReload,
};
constexpr Uses operator|(Uses a, Uses b) { return Uses(unsigned(a) | unsigned(b)); }
constexpr bool uses(Uses set, Uses one) { return (unsigned(set) & unsigned(one)) != 0; }

struct CommonOptions {
  DeviceOptions device;
  bool profile = false;
  bool json = false;
  std::optional<std::string> hotReloadDir;  // "" means the source tree's shaders/ (or a bundle's)
  std::optional<uint64_t> memoryBudgetMb;   // --memory-budget; default: voxen::defaultMemoryBudgetBytes()
  // Throws UsageError for a bare --hot-reload when no shader source folder is found.
  ShaderLibraryOptions libraryOptions() const;
  // The Context these flags describe: device, validation, hot reload, budget and its hint.
  // Throws UsageError for a bare --hot-reload when no shader source folder is found.
  ContextOptions contextOptions() const;
  // Host memory the command may use for maps, grids and the GPU region cache.
  uint64_t memoryBudgetBytes() const;
  // How a budget error ends: the flag to raise and its value now.
  std::string memoryBudgetHint() const;
  // The common flags given on the command line ("--device", ...), for refuseWith.
  std::set<std::string> given;
  // Throws UsageError for the first of `flags` given, as having no effect with `other`:
  // "--device has no effect with --cpu (the CPU reference opens no device)".
  void refuseWith(std::initializer_list<const char*> flags, const std::string& other, const std::string& why) const;
};

// Map loading refused up front when the file's regions would not fit the budget.
MapLoadOptions budgetedLoad(const CommonOptions& options);

// --device's selector in lower case, for its two words: 'auto' (or none) lets a command choose
// (voxen map: the CPU reference for a small input; voxen heightmap: on a CPU driver), 'gpu'
// asks for the GPU. Any other selector names a device (an index or part of its name), which
// asks for the GPU on it.
std::string deviceWord(const CommonOptions& options);

// Whether --device auto leaves the choice to the device found: no device named (or 'auto'), and
// neither --validation nor --hot-reload, which ask for a device to run on. A command that finds
// a CPU driver then takes its CPU reference (voxen heightmap, voxen mesh, voxen map --tsdf).
bool deviceLeftToAuto(const CommonOptions& options);

// Declares the common flags on `command` (called `name`: "bench map") that `used` names,
// writing into `options` when they are given; each of the others is refused by name, with
// the reason, when given. A command that declared one of them itself (bench all --json FILE)
// keeps its own.
void addCommonOptions(CLI::App& command, const std::string& name, CommonOptions& options, Uses used);
// After parsing: the common flags given on the command line, into options.given.
void noteCommonOptions(const CLI::App& command, CommonOptions& options);
// Whether `command` declared a --json option of its own (bench all --json FILE), so that
// --json does not ask for JSON on stdout and its errors stay text.
bool declaresOwnJson(const CLI::App* command);

}  // namespace voxen::cli

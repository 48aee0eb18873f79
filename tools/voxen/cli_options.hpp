#pragma once
// The flags every voxen command accepts (--device, --validation, --profile, --json,
// --hot-reload[=DIR], --memory-budget MB), declared on each command so that `voxen <command> --help` shows them.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/host/device.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

// A command line the tool cannot act on: reported with exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  DeviceOptions device;
  bool profile = false;
  bool json = false;
  std::optional<std::string> hotReloadDir;  // "" means the source tree's shaders/ (or a bundle's)
  std::optional<uint64_t> memoryBudgetMb;   // --memory-budget; default: voxen::defaultMemoryBudgetBytes()
  // Throws UsageError for a bare --hot-reload when no shader source folder is found.
  ShaderLibraryOptions libraryOptions() const;
  // Host memory the command may use for maps, grids and the GPU region cache.
  uint64_t memoryBudgetBytes() const;
  // How a budget error ends: the flag to raise and its value now.
  std::string memoryBudgetHint() const;
};

// Map loading refused up front when the file's regions would not fit the budget.
MapLoadOptions budgetedLoad(const CommonOptions& options);

// Declares the common flags on `command`, writing into `options` when they are given. A
// command that declared a --json option of its own keeps it instead of the common flag.
void addCommonOptions(CLI::App& command, CommonOptions& options);
// Whether `command`'s --json is the common flag (JSON on stdout, errors included); true
// before a command is known.
bool hasCommonJsonFlag(const CLI::App* command);

}  // namespace voxen::cli

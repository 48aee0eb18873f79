#pragma once
// The flags every voxen command accepts (--device, --validation, --profile, --json,
// --hot-reload[=DIR]), declared on each command so that `voxen <command> --help` shows them.
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/host/device.hpp"
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
  std::optional<std::string> hotReloadDir;  // "" means the build's source folder
  ShaderLibraryOptions libraryOptions() const;
};

// Declares the common flags on `command`, writing into `options` when they are given.
void addCommonOptions(CLI::App& command, CommonOptions& options);

}  // namespace voxen::cli

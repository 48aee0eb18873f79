#pragma once
// Command-line parsing shared by the voxen subcommands: flags every command accepts
// (--device, --validation, --profile, --hot-reload) and a small cursor over the rest.
#include <optional>
#include <string>
#include <vector>

#include "voxen/host/device.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

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

// Consumes the common flags from `args` and returns what is left, in order.
std::vector<std::string> parseCommon(const std::vector<std::string>& args, CommonOptions& options);

}  // namespace voxen::cli

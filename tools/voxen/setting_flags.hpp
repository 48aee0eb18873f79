#pragma once
// The library names a setting it needs changed by its field (voxen::SettingError); the tool
// names the flag that sets it, so that "raise the GPU region cache (now 64 MiB)" becomes
// "raise --gpu-cache-mb (now 64 MiB)" without the library knowing the tool's flags.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace voxen::cli {

// The flag of `command` that sets `field` ("NdtModel::resetProbability"), when it has one;
// for a remedy another command provides ("NdtModel::mode" on a map without NDT layers),
// that command line.
std::optional<std::string> flagForSetting(const std::string& field, const CLI::App& command);

}  // namespace voxen::cli

#pragma once
// `--pcd-viewpoint origin|pose`: how a PCD file's VIEWPOINT is read (voxen/input/pcd.hpp,
// PcdViewpoint), for the commands that read recordings (map, inspect), and the warnings a
// reader gives when no reading was chosen, worded with the flag.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/input/pcd.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen::cli {

// Declares --pcd-viewpoint; `reading` stays empty unless it is given.
CLI::Option* addPcdViewpointOption(CLI::App& command, std::optional<PcdViewpoint>& reading);

// Each warning on stderr as "voxen <command>: warning: ...", the setting called by its flag.
void printSettingWarnings(const std::string& command, const std::vector<SettingWarning>& warnings);

}  // namespace voxen::cli

#pragma once
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace voxen::cli {

int infoCommand(const CommonOptions& options, const std::vector<std::string>& args);
int selftestCommand(const CommonOptions& options, const std::vector<std::string>& args);
int benchCoreCommand(const CommonOptions& options, const std::vector<std::string>& args);

}  // namespace voxen::cli

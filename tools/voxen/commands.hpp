#pragma once
// Subcommands register themselves: each *_command.cpp defines a function and a static
// CommandRegistration, so adding a command touches no shared file.
//   static CommandRegistration reg{"export", "write PLY, PNG or OctoMap from a map", &exportCommand};
// Benchmarks register as "bench <name>" and are reached as `voxen bench <name>`.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace voxen::cli {

using CommandFunction = int (*)(const CommonOptions& options, const std::vector<std::string>& args);

struct Command {
  std::string summary;
  CommandFunction run = nullptr;
};

std::map<std::string, Command>& commandRegistry();

struct CommandRegistration {
  CommandRegistration(const std::string& name, const std::string& summary, CommandFunction run) {
    commandRegistry()[name] = Command{summary, run};
  }
};

}  // namespace voxen::cli

#pragma once
// Subcommands register themselves: each *_command.cpp defines a setup function and a static
// CommandRegistration, so adding a command touches no shared file.
//   static CommandRegistration reg{"export", "write PLY, PNG or OctoMap from a map", &setupExport, Uses::MemoryBudget};
// The last argument lists the common flags the command acts on (cli_options.hpp): the others
// are refused when given.
// Setup declares the command's flags on its CLI11 subcommand (bound to values it owns) and
// returns what runs once the command line has been parsed. Benchmarks register as
// "bench <name>" and are reached as `voxen bench <name>`.
#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"

namespace voxen::cli {

using CommandRun = std::function<int(const CommonOptions& options)>;
using CommandSetup = CommandRun (*)(CLI::App& command);

struct Command {
  std::string summary;
  CommandSetup setup = nullptr;
  Uses uses = Uses::Nothing;
};

std::map<std::string, Command>& commandRegistry();

struct CommandRegistration {
  CommandRegistration(const std::string& name, const std::string& summary, CommandSetup setup, Uses uses) {
    commandRegistry()[name] = Command{summary, setup, uses};
  }
};

}  // namespace voxen::cli

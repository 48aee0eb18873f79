// The voxen command-line tool: one subcommand per job (see commands.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {
std::map<std::string, Command>& commandRegistry() {
  static std::map<std::string, Command> registry;
  return registry;
}
}  // namespace voxen::cli

namespace {

void printUsage(std::ostream& out) {
  out << "usage: voxen <command> [options]\n\ncommands:\n";
  for (const auto& [name, command] : voxen::cli::commandRegistry()) {
    std::string pad = name.size() < 18 ? std::string(18 - name.size(), ' ') : " ";
    out << "  " << name << pad << command.summary << "\n";
  }
  out << R"(
options for every command:
  --device SEL        device index or name substring (default: $VOXEN_DEVICE, then
                      discrete GPU > integrated GPU > CPU driver)
  --validation        Vulkan validation layer on (also VOXEN_VALIDATION=1)
  --profile           print GPU time per pass at the end
  --json              machine-readable output where the command supports it
  --hot-reload[=DIR]  compile shaders from DIR (default: the source tree's shaders/) and
                      reload them when they change (also VOXEN_SHADER_DIR=DIR)
)";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(std::cout);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "bench" && !args.empty()) {  // "bench map" is registered as one name
    command += " " + args[0];
    args.erase(args.begin());
  }
  const auto& registry = voxen::cli::commandRegistry();
  const auto found = registry.find(command);
  if (found == registry.end()) {
    std::cerr << "voxen: unknown command '" << command << "'\n\n";
    printUsage(std::cerr);
    return 2;
  }
  try {
    voxen::cli::CommonOptions options;
    const auto rest = voxen::cli::parseCommon(args, options);
    return found->second.run(options, rest);
  } catch (const voxen::cli::UsageError& e) {
    std::cerr << "voxen " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "voxen " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}

// The voxen command-line tool: one subcommand per job.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "voxen/host/error.hpp"

namespace {

const char* kUsage = R"(usage: voxen <command> [options]

commands:
  info        the chosen Vulkan device, its features and limits, and the other devices
  selftest    run GPU passes through the scheduler and check them against the CPU
  bench core  staging bandwidth, kernel throughput, dispatch overhead, first-dispatch and
              hot-reload latency, each beside a CPU reference [--mb N]

options for every command:
  --device SEL        device index or name substring (default: $VOXEN_DEVICE, then
                      discrete GPU > integrated GPU > CPU driver)
  --validation        Vulkan validation layer on (also VOXEN_VALIDATION=1)
  --profile           print GPU time per pass at the end
  --json              machine-readable output where the command supports it
  --hot-reload[=DIR]  compile shaders from DIR (default: the source tree's shaders/) and
                      reload them when they change (also VOXEN_SHADER_DIR=DIR)
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    voxen::cli::CommonOptions options;
    const auto rest = voxen::cli::parseCommon(args, options);
    if (command == "info") return voxen::cli::infoCommand(options, rest);
    if (command == "selftest") return voxen::cli::selftestCommand(options, rest);
    if (command == "bench") {
      if (rest.empty() || rest[0] != "core") throw voxen::cli::UsageError("usage: voxen bench core [--mb N] [--json]");
      return voxen::cli::benchCoreCommand(options, {rest.begin() + 1, rest.end()});
    }
    std::cerr << "voxen: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const voxen::cli::UsageError& e) {
    std::cerr << "voxen " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "voxen " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}

// The voxen command-line tool: one subcommand per job (see commands.hpp), parsed by CLI11.
// Exit status: 0 done, 1 the work failed (a bad file, a device error), 2 a usage error.
// Errors go to stderr, or with --json as a JSON object on stdout (error_report.hpp).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bundle_paths.hpp"
#include "commands.hpp"
#include "report/error_report.hpp"
#include "setting_flags.hpp"
#include "version.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/atomic_file/output_file.hpp"
#include "voxen/input/ros_bag_input.hpp"
#include "voxen_apps/help_formatter.hpp"
#include "voxen_apps/typo_hints.hpp"

namespace voxen::cli {
std::map<std::string, Command>& commandRegistry() {
  static std::map<std::string, Command> registry;
  return registry;
}
}  // namespace voxen::cli

namespace {

using namespace voxen::cli;

// The CLI11 subcommand for a registered name: "bench map" is `map` under `bench`, whose
// summary lists the names under it.
CLI::App& addSubcommand(CLI::App& app, std::map<std::string, CLI::App*>& groups, const std::string& name,
                        const std::string& summary) {
  const size_t space = name.find(' ');
  if (space == std::string::npos) return *app.add_subcommand(name, summary);
  const std::string groupName = name.substr(0, space), leaf = name.substr(space + 1);
  CLI::App*& group = groups[groupName];
  if (!group) {
    group = app.add_subcommand(groupName, "");
    group->require_subcommand(1);
  }
  const std::string listed = group->get_description();
  group->description((listed.empty() ? groupName + " NAME, NAME one of: " : listed + ", ") + leaf);
  return *group->add_subcommand(leaf, summary);
}

// The command the line chose ("bench map" goes two levels down), or null.
const CLI::App* chosenCommand(const CLI::App& app) {
  const CLI::App* chosen = nullptr;
  for (auto chosenHere = app.get_subcommands(); !chosenHere.empty(); chosenHere = chosenHere.front()->get_subcommands())
    chosen = chosenHere.front();
  return chosen;
}

std::string commandName(const CLI::App* command) {
  std::string name;
  for (; command && command->get_parent(); command = command->get_parent())
    name = command->get_name() + (name.empty() ? "" : " " + name);
  return name;
}

// Test hooks for `voxen bench all`, which must report a workload that crashes or hangs and
// go on: the command named by VOXEN_TEST_HOOK_ABORT_COMMAND ("bench ndt") aborts as it
// starts, the one named by VOXEN_TEST_HOOK_HANG_COMMAND sleeps until it is killed.
void testHooks(const std::string& name) {
  const char* abortCommand = std::getenv("VOXEN_TEST_HOOK_ABORT_COMMAND");
  if (abortCommand && name == abortCommand) std::abort();
  const char* hangCommand = std::getenv("VOXEN_TEST_HOOK_HANG_COMMAND");
  if (hangCommand && name == hangCommand)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// --quiet quiets the library's notes too (the first run's "compiling shaders"), through the
// log sink; its warnings and errors still show. Without --quiet the default sink stays.
void quietLibraryNotes(const CLI::App& command) {
  if (command.get_option_no_throw("--quiet") == nullptr || command.count("--quiet") == 0) return;
  voxen::setLogSink([](voxen::LogLevel level, const std::string& message) {
    if (level == voxen::LogLevel::Info) return;
    if (level == voxen::LogLevel::Debug) {
      const char* debug = std::getenv("VOXEN_DEBUG");
      if (!debug || !*debug || std::string(debug) == "0") return;
    }
    std::cerr << ("voxen: " + message + "\n") << std::flush;
  });
}

}  // namespace

int main(int argc, char** argv) {
  // ^C or a kill during a save removes the save's temporary file; the target stays as it was.
  voxen::removeTemporaryFilesOnSignals();
  voxen::cli::pointRosAtBundle();  // before any command can open a ROS 1 bag
#if VOXEN_HAVE_ROSBAG
  voxen::enableRosBagInput();  // voxen::rosbag: this build reads ROS 1 bags
#endif
  CLI::App app{"voxen: occupancy mapping and voxel painting with Vulkan compute", "voxen"};
  app.require_subcommand(1);
  // Answered while parsing, before any command runs: no Vulkan device is opened.
  app.set_version_flag("--version", versionText(), "print the version (and the git commit it was built from) and exit");
  app.formatter(std::make_shared<voxen::apps::HelpFormatter>());  // before the subcommands, which copy it
  CommonOptions common;
  std::map<const CLI::App*, CommandRun> runs;
  std::map<std::string, CLI::App*> groups;
  for (const auto& [name, command] : commandRegistry()) {
    CLI::App& subcommand = addSubcommand(app, groups, name, command.summary);
    runs[&subcommand] = command.setup(subcommand);
    addCommonOptions(subcommand, name, common, command.uses);  // after the command's own, so they come last in its help
  }
  app.footer("Run 'voxen <command> --help' for the options of a command.");  // after: subcommands would copy it

  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help") {
    std::cout << app.help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "-h" && args[0] != "--help" && args[0] != "--version" && app.get_subcommands([&](CLI::App* c) { return c->check_name(args[0]); }).empty()) {
    std::vector<std::string> names;
    for (const std::string& name : voxen::apps::closestWords(args[0], voxen::apps::subcommandNames(app)))
      names.push_back("'" + name + "'");
    const std::string message = "unknown command '" + args[0] + "'" + voxen::apps::didYouMean(names);
    if (wantsJson(args)) printError({"", message, 2, true, ""}, true, args);
    else std::cerr << "voxen: " << message << "\n\n" << app.help();
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the help of the command given, if any
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    const CLI::App* command = chosenCommand(app);
    const std::string name = commandName(command);
    // An unknown flag (or command under `bench`) with the closest known ones.
    const std::string message = voxen::apps::parseErrorMessage(e, command ? *command : app);
    printError({name, message, 2, true, "Run 'voxen " + name + " --help' for its options."},
               wantsJson(args) && !declaresOwnJson(command), args);
    return 2;
  }
  const CLI::App* command = chosenCommand(app);
  const std::string name = commandName(command);
  testHooks(name);
  try {
    // Test hook: the command named by VOXEN_TEST_HOOK_BAD_ALLOC_COMMAND fails as an allocation
    // no site names would, to test the message below.
    if (const char* badAlloc = std::getenv("VOXEN_TEST_HOOK_BAD_ALLOC_COMMAND"); badAlloc && name == badAlloc)
      throw std::bad_alloc();
    noteCommonOptions(*command, common);
    quietLibraryNotes(*command);
    return runs.at(command)(common);
  } catch (const voxen::SettingError& e) {
    // A library setting out of range or in need of a change: named by the flag that sets it,
    // and a usage error when that flag's value is out of range.
    const std::optional<std::string> flag = flagForSetting(e.field(), *command);
    const bool usage = flag && e.kind() == voxen::SettingError::Kind::Invalid;
    printError({name, flag ? e.naming(*flag) : e.what(), usage ? 2 : 1, usage, ""}, common.json, args);
    return usage ? 2 : 1;
  } catch (const UsageError& e) {
    printError({name, e.what(), 2, true, ""}, common.json, args);
    return 2;
  } catch (const std::bad_alloc& e) {
    // A failed allocation that no site named (those that size memory from an input or a flag
    // throw an error saying so): never a bare "std::bad_alloc".
    printError({name, outOfMemoryMessage(e.what()), 1, false, ""}, common.json, args);
    return 1;
  } catch (const std::length_error& e) {
    printError({name, outOfMemoryMessage(std::string("a size past what memory can hold: ") + e.what()), 1, false, ""},
               common.json, args);
    return 1;
  } catch (const std::exception& e) {
    printError({name, e.what(), 1, false, ""}, common.json, args);
    return 1;
  }
}

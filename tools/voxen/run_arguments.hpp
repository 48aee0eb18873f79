#pragma once
// A command's options as given on its command line, kept so that a later command can take
// them again: `voxen map --store` records its arguments in the store, and `voxen map --store
// S --resume` continues the run with them, so that the resume hint it prints (and voxen info
// prints) is a command that works as it stands. Options given to the resuming command replace
// the recorded ones of the same name; the run's settings are then checked as on any resume.
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace voxen::cli {

struct GivenOption {
  std::string name;                 // "--resolution"
  std::vector<std::string> values;  // none for a flag
  bool flag = false;
};
using GivenOptions = std::vector<GivenOption>;

// The options of `command` that its command line gave, in the command's order, among `names`
// (long names with their dashes); the values of those in `paths` made absolute, so that the
// arguments still name the same files from another working directory.
GivenOptions givenOptions(const CLI::App& command, const std::set<std::string>& names, const std::set<std::string>& paths);

// One line of JSON, and back (an Error naming `what` for text that is not such a list).
std::string encodeOptions(const GivenOptions& options);
GivenOptions decodeOptions(const std::string& text, const std::string& what);

// `recorded` with each option `given` names replaced by given's (in recorded's place; options
// in one of `alike`, such as --cloud and --input, count as one), then the given ones that were
// not recorded.
GivenOptions mergedOptions(const GivenOptions& recorded, const GivenOptions& given,
                           const std::vector<std::set<std::string>>& alike);

// Arguments CLI11 parses back into the same options ("--name=value" for one value).
std::vector<std::string> argumentsOf(const GivenOptions& options);

}  // namespace voxen::cli

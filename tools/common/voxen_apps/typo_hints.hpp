#pragma once
// What a mistyped flag or command most likely meant, for the voxen tool and the samples
// alike (target voxen_apps_common): "unknown option --resoltion; did you mean --resolution?".
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace voxen::apps {

// The words of `known` closest to `word` by edit distance (a letter inserted, removed,
// replaced, or two neighbouring letters swapped), or those that `word` begins (at least
// three letters); several when they are as close. None when even the closest is too far
// for a typo: more than one edit per four letters (at least one, at most three).
std::vector<std::string> closestWords(const std::string& word, const std::vector<std::string>& known);

// "; did you mean --resolution?" ("--a or --b?" for two), or "" for none.
std::string didYouMean(const std::vector<std::string>& candidates);

// The long and short flags `command` lists in its help (hidden ones left out), with dashes.
std::vector<std::string> visibleFlags(const CLI::App& command);
// The names of `command`'s subcommands.
std::vector<std::string> subcommandNames(const CLI::App& command);

// The message for a parse error that stopped at `command` (the deepest subcommand given, or
// the app itself): an unknown flag, or an unknown command under a command that takes one,
// is named with the closest known ones; `prefix` goes before a command's name ("voxen ").
// Other errors keep CLI11's message.
std::string parseErrorMessage(const CLI::ParseError& error, const CLI::App& command, const std::string& prefix = "");

}  // namespace voxen::apps

#pragma once
// The checks every command runs on its outputs before any work, so that a bad output path
// fails in a second rather than after hours of mapping, and no command overwrites its own
// input. Each failure is a UsageError (exit status 2) naming the flag.
#include <string>
#include <vector>

namespace voxen::cli {

struct NamedPath {
  std::string name;  // the flag or argument as the user knows it: "--output", "the map"
  std::string path;  // empty: not given, skipped
};

// For each output: the library's rules for writing it (voxen::checkOutputPath: not a
// directory, not read-only, its folder exists and is writable). Then no output may be the
// same file as an input (device and inode, after symbolic links: hard links too) or as
// another output ("--output is the same file as --cloud").
void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace voxen::cli

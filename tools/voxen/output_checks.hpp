#pragma once
// The checks every command runs on its outputs before any work, so that a bad output path
// fails in a second rather than after hours of mapping, and no command overwrites its own
// input: the library's voxen::checkOutputPaths, each failure a UsageError (exit status 2)
// naming the flag.
#include <vector>

#include "voxen/atomic_file/output_paths.hpp"

namespace voxen::cli {

using voxen::NamedPath;  // name: the flag or argument as the user knows it ("--output", "the map")

void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace voxen::cli

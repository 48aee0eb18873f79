#pragma once
// The checks a program runs on its output paths before long work, beside the writer's own
// rules (checkOutputPath in voxen/atomic_file/output_file.hpp): no output may be the same file as
// an input, which writing it would destroy, nor as another output.
#include <string>
#include <vector>

namespace voxen {

struct NamedPath {
  std::string name;  // the path as the caller's user knows it: "--output", "the map"
  std::string path;  // empty: not given, skipped
};

// For each output, in order: not the same file as a regular input (device and inode after
// symbolic links, so hard links count; a terminal named twice is no danger), nor as an
// earlier output (existing or not: "a.ply" and "./a.ply"; two outputs to one device are
// fine), and writable by the library's rules (checkOutputPath). Throws voxen::Error naming
// the output by its name: "--output is the same file as --cloud ('a' and 'b'): writing it
// would destroy the input", or "--output: cannot write 'a': ...".
void checkOutputPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace voxen

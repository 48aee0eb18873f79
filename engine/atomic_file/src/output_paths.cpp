#include "voxen/atomic_file/output_paths.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "voxen/host/error.hpp"
#include "voxen/atomic_file/output_file.hpp"

namespace voxen {

namespace {

// Whether writing `output` would overwrite the regular file `input`: the same device and
// inode, symbolic links followed. A terminal or pipe named twice (/dev/stdin and
// /dev/stdout on one tty) is no such danger, so only regular inputs count.
bool overwritesInput(const std::string& output, const std::string& input) {
  struct stat out {}, in {};
  if (::stat(input.c_str(), &in) != 0 || !S_ISREG(in.st_mode)) return false;
  if (::stat(output.c_str(), &out) != 0) return false;  // not there yet: cannot be the input
  return out.st_dev == in.st_dev && out.st_ino == in.st_ino;
}

// Whether two outputs end up in one file, existing or not ("a.ply" and "./a.ply"). Two
// outputs to one device (/dev/null) are fine: nothing is replaced.
bool sameOutput(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  // Made absolute first: weakly_canonical leaves a relative path whose file is missing as it is.
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
  return !ea && !eb && ca == cb;
}

std::string sameFileMessage(const NamedPath& output, const NamedPath& other, const std::string& consequence) {
  return output.name + " is the same file as " + other.name + " ('" + output.path + "' and '" + other.path + "')" +
         consequence;
}

}  // namespace

void checkOutputPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    if (output.path.empty()) continue;
    for (const NamedPath& input : inputs)
      if (!input.path.empty() && overwritesInput(output.path, input.path))
        throw Error(sameFileMessage(output, input, ": writing it would destroy the input"));
    for (size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && sameOutput(output.path, outputs[j].path))
        throw Error(sameFileMessage(output, outputs[j], ": give each output its own file"));
    try {
      checkOutputPath(output.path);
    } catch (const Error& e) {
      throw Error(output.name + ": " + e.what());
    }
  }
}

}  // namespace voxen

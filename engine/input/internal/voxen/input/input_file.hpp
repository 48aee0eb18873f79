#pragma once
// Opening an input file with an error that says what is wrong: missing, a directory, a pipe
// or device, or unreadable (with the system's reason, e.g. "Permission denied"), rather than
// one "no such file" for all of them.
#include <filesystem>
#include <fstream>
#include <string>

namespace voxen::detail {

// Opens `path` for binary reading; throws Error "<path>: <why>" where `what` names the kind of
// file in the message ("trajectory file"). Only regular files are accepted: the readers
// measure and seek their input.
std::ifstream openInputFile(const std::filesystem::path& path, const std::string& what);

}  // namespace voxen::detail

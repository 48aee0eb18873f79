#pragma once
// Opening an input file with an error that says what is wrong: missing, a directory, a pipe
// or device, or unreadable (with the system's reason, e.g. "Permission denied"), rather than
// one "no such file" for all of them.
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <string>
#include <vector>

namespace voxen::detail {

// Opens `path` for binary reading; throws Error "<path>: <why>" where `what` names the kind of
// file in the message ("trajectory file"). Only regular files are accepted: the readers
// measure and seek their input.
std::ifstream openInputFile(const std::filesystem::path& path, const std::string& what);

// The whole file's bytes (an image file: a depth or colour PNG), opened as openInputFile; throws
// Error "<path>: cannot read the <what>" when the read fails part-way.
std::vector<uint8_t> readInputFile(const std::filesystem::path& path, const std::string& what);

}  // namespace voxen::detail

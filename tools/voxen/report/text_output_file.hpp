#pragma once
// Writing a small text output (a report, a table) by the library's rules for output files
// (docs/architecture.md, "Output files"): a regular file is replaced only once complete,
// through a temporary sibling that is flushed and renamed over it, and keeps its
// permissions; a symbolic link is written through; a character device or a FIFO
// (/dev/null, /dev/stdout, a named pipe) is written directly. The library's own writer is
// private to it; a report of kilobytes needs no more than this. Check the path first with
// checkOutputs (output_checks.hpp), before the work.
#include <string>

namespace voxen::cli {

// Throws voxen::Error "cannot write <flag> '<path>': <why>"; the target is left as it was.
void writeTextFile(const std::string& path, const std::string& text, const std::string& flag);

}  // namespace voxen::cli

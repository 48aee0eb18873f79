#pragma once
// How the library writes output files (maps, PNG and PLY exports, OctoMap files, clouds), and
// what a program can do about them before and during the work. The rules themselves are
// stated in docs/architecture.md ("Output files"); in short: a regular file is replaced
// atomically through a temporary sibling and keeps its permissions, a symbolic link is
// written through to its target, a character device or a FIFO (/dev/null, a named pipe) is
// written to directly, and a directory, a block device or a read-only file is refused.
#include <filesystem>

namespace voxen {

// Throws voxen::Error ("cannot write '<path>': <why>") where the library's writers would
// refuse `path`: a directory, a block device, a read-only file, a folder that does not
// exist or cannot be written. A program calls it before hours of work, not after.
void checkOutputPath(const std::filesystem::path& path);

// Installs handlers for SIGINT, SIGTERM and SIGHUP, each only where the signal still has its
// default action, that remove the temporary files of the saves in progress and then let the
// signal end the process as it would have. Idempotent.
void removeTemporaryFilesOnSignals();

// Removes the temporary files of the saves in progress. Async-signal-safe (unlink only):
// for a program with signal handlers of its own to call from them.
void removeTemporaryFilesNow();

}  // namespace voxen

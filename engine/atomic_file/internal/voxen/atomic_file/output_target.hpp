#pragma once
// Private to the library: what sits at an output path, symbolic links followed, and whether
// the rules of voxen/atomic_file/atomic_file.hpp allow writing it.
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace voxen::detail {

enum class OutputKind {
  NewFile,      // nothing there yet: created through a temporary sibling
  RegularFile,  // replaced through a temporary sibling, keeping mode and owner
  Stream,       // a character device, FIFO or socket: written to directly
};

struct OutputTarget {
  std::filesystem::path path;  // symbolic links resolved: the file written or replaced
  OutputKind kind = OutputKind::NewFile;
  mode_t mode = 0;             // RegularFile: permission bits to keep
  uid_t owner = 0;
  gid_t group = 0;
};

// Follows symbolic links (at most 40, as the kernel does) and applies the rules. Throws
// voxen::Error "<context> '<path>': <why>" for a directory, a block device, a read-only
// file, or a folder that is missing, not a folder or not writable.
OutputTarget resolveOutputTarget(const std::filesystem::path& path, const std::string& context);

}  // namespace voxen::detail

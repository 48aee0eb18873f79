#pragma once
// Private to the library: the one writer of output files (map files, PNG and PLY exports,
// OctoMap files, ray clouds, synthetic lidar clouds and trajectories). What it does depends
// on what sits at the target path:
//
// - Nothing, or a regular file: the bytes go to a temporary sibling (".NAME.tmp-PID-N" in
//   the same folder), which is flushed to disk (fsync) and renamed over the target, so a
//   reader, a crash or a full disk leaves the old file or the complete new one, never a
//   truncated one. An existing file keeps its permission bits, and its owner and group
//   where the process may set them (root). It gets a new inode: other hard links to it keep
//   the old content, as with editors and sed -i.
// - A file with no write permission bit (0444): refused, naming the file and "read-only",
//   even for root. A file this process cannot write (access(W_OK)): refused.
// - A symbolic link: followed (chains too); the rules apply to its target, so the link
//   stays a link and the file it points to is replaced.
// - A character device, FIFO or socket (/dev/null, /dev/stdout, a named pipe): written to
//   directly, no temporary file and no rename, so /dev/null stays a device. A writer that
//   patches bytes it wrote earlier (Patching::Needed: PLY vertex counts) spools to an
//   unnamed temporary file (O_TMPFILE in the temp folder) and copies it on commit().
// - A directory or a block device: refused. A missing or unwritable folder: refused.
//
// Errors are voxen::Error "cannot save <what> to '<path>': <why>: <strerror>" (a full disk
// reads "No space left on device"); the temporary file is removed on every error, when the
// writer dies uncommitted (an exception on the way), and, once the program has called
// voxen::removeTemporaryFilesOnSignals (voxen/atomic_file/output_file.hpp; the voxen tool does), on
// SIGINT, SIGTERM and SIGHUP. The target is never touched before commit(). The same rules,
// with the reasons, are in docs/architecture.md ("Output files").
//
// Test hook: the environment variable VOXEN_TEST_HOOK_PAUSE_BEFORE_RENAME_MS makes commit()
// sleep that long between the fsync and the rename, so a test can signal a save in progress.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "voxen/atomic_file/output_target.hpp"

namespace voxen::detail {

class AtomicFileWriter {
 public:
  enum class Patching { None, Needed };

  // `what` names the kind of file in messages ("map", "PLY", "PNG"). Resolves the target and
  // creates the temporary file (or opens the stream) at once: errors come before any work.
  AtomicFileWriter(const std::filesystem::path& target, std::string what, Patching patching = Patching::None);
  ~AtomicFileWriter();  // uncommitted: the temporary file is removed, the target untouched
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t bytes);
  // Overwrites bytes written earlier (offset + bytes <= written()); needs Patching::Needed.
  void patch(uint64_t offset, const void* data, size_t bytes);
  uint64_t written() const { return written_; }
  // Makes the output final: rename over the target, or the last bytes out to the stream.
  void commit();

  const std::filesystem::path& target() const { return target_; }

 private:
  [[noreturn]] void fail(const std::string& message, int error);  // discards, then throws
  void flushBuffer();
  void writeAll(int fd, const void* data, size_t bytes);
  void copySpoolToStream();
  void discard() noexcept;

  std::filesystem::path target_;  // as given, for messages
  std::string what_;
  OutputTarget resolved_;
  std::filesystem::path temp_;  // the temporary sibling; empty when writing a stream
  int tempSlot_ = -1;           // in the signal cleanup registry
  int fd_ = -1;                 // the temporary file, the spool or the stream
  int streamFd_ = -1;           // the stream, while fd_ is its spool
  std::vector<char> buffer_;
  uint64_t written_ = 0;
  bool patchable_ = false;
  bool committed_ = false;
};

}  // namespace voxen::detail

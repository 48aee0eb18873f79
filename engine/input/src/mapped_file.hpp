#pragma once
// A regular file mapped read-only into memory, so that worker threads can decode disjoint
// parts of a PLY body at once without sharing a stream or copying through a buffer.
//
// Mapping is an optimisation, never a requirement: open() returns nullopt where it is not
// possible (no mmap on the platform, an empty file, an mmap failure) and the caller reads
// through its stream instead. A file truncated by another process while it is mapped raises
// SIGBUS on access, as with any mapped reader; Voxen reads inputs it does not expect to change.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

namespace voxen::detail {

class MappedFile {
 public:
  static std::optional<MappedFile> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // The bytes [begin, begin + bytes) have been read and will not be needed again soon: their
  // whole pages leave this process's resident memory (they stay in the page cache, and a
  // later read of them faults them back in: the mapping is read-only, so nothing is lost).
  // A reader calls it behind itself so that a large input does not stay resident.
  void doneWith(const char* begin, size_t bytes) const;

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  void release();

  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace voxen::detail

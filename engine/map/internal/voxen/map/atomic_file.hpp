#pragma once
// Private to the map and io modules: writes a file the way editors save, so that a reader sees the
// old file or the complete new one: a temporary sibling is written, flushed to disk and
// renamed over the target. The temporary file is removed when the writer dies uncommitted
// (an exception on the way).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen::detail {

class AtomicFileWriter {
 public:
  // `what` names the kind of file in messages ("map", "PLY", "PNG").
  AtomicFileWriter(const std::filesystem::path& target, std::string what) : target_(target), what_(std::move(what)) {
    static std::atomic<unsigned> counter{0};
    std::string name = ".";  // appended piece by piece: GCC 12 warns (falsely) on "." + std::string
    name += target.filename().string();
    name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    temp_ = target.parent_path() / name;
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) fail("cannot create temporary file '" + temp_.string() + "'", errno);
  }
  ~AtomicFileWriter() {
    if (file_) std::fclose(file_);
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove(temp_, ec);
    }
  }
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t bytes) {
    if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) fail("write failed", errno);
    written_ += bytes;
  }
  uint64_t written() const { return written_; }

  void commit() {
    if (std::fflush(file_) != 0) fail("write failed", errno);
    if (::fsync(::fileno(file_)) != 0) fail("fsync failed", errno);
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) fail("close failed", errno);
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) throw Error("cannot save " + what_ + " to '" + target_.string() + "': rename from '" + temp_.string() + "' failed: " + ec.message());
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const std::string& message, int error) const {
    throw Error("cannot save " + what_ + " to '" + target_.string() + "': " + message + ": " + std::strerror(error));
  }

  std::filesystem::path target_, temp_;
  std::string what_;
  std::FILE* file_ = nullptr;
  uint64_t written_ = 0;
  bool committed_ = false;
};

}  // namespace voxen::detail

#include "voxen/atomic_file/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "voxen/host/error.hpp"
#include "voxen/atomic_file/temp_file_registry.hpp"

namespace voxen::detail {

namespace {

constexpr size_t kBufferBytes = size_t(1) << 20;

std::filesystem::path temporarySibling(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  std::string name = ".";  // appended piece by piece: GCC 12 warns (falsely) on "." + std::string
  // At most 200 bytes of the target's name, so the temporary name stays within NAME_MAX (255).
  name += target.filename().string().substr(0, 200);
  name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return target.parent_path() / name;
}

// An unnamed file in the temp folder: nothing to clean up, whatever ends the process.
int openSpool() {
  const std::string folder = std::filesystem::temp_directory_path().string();
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string pattern = folder + "/voxen-spool-XXXXXX";  // file systems without O_TMPFILE
  fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(pattern.c_str());
  return fd;
}

void syncFolder(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; this only hastens its way to the disk
  ::fsync(fd);
  ::close(fd);
}

void pauseForTests() {
  const char* hook = std::getenv("VOXEN_TEST_HOOK_PAUSE_BEFORE_RENAME_MS");
  if (hook && *hook) std::this_thread::sleep_for(std::chrono::milliseconds(std::atoll(hook)));
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& target, std::string what, Patching patching)
    : target_(target), what_(std::move(what)), patchable_(patching == Patching::Needed) {
  resolved_ = resolveOutputTarget(target_, "cannot save " + what_ + " to");
  buffer_.reserve(kBufferBytes);
  if (resolved_.kind == OutputKind::Stream) {
    // No O_CREAT, no O_TRUNC: a device or pipe is written as it is. A FIFO blocks here until
    // a reader opens it, as `cat > fifo` does.
    const int stream = ::open(resolved_.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (stream < 0) fail("cannot open", errno);
    if (!patchable_) {
      fd_ = stream;
      return;
    }
    streamFd_ = stream;
    fd_ = openSpool();
    if (fd_ < 0) fail("cannot create a spool file in " + std::filesystem::temp_directory_path().string(), errno);
    return;
  }
  temp_ = temporarySibling(resolved_.path);
  tempSlot_ = registerTemporaryFile(temp_.string());  // before the file exists: a signal finds it
  const bool existing = resolved_.kind == OutputKind::RegularFile;
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing ? 0600 : 0666);
  if (fd_ < 0) fail("cannot create temporary file '" + temp_.string() + "'", errno);
  if (existing) {
    // The owner first: chown clears set-user-ID bits, which the chmod then restores. Only
    // root may give a file away; others keep their own ownership, as cp does.
    if (::fchown(fd_, resolved_.owner, resolved_.group) != 0 && errno != EPERM) fail("cannot set the owner", errno);
    if (::fchmod(fd_, resolved_.mode) != 0) fail("cannot set the permissions", errno);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) discard();
}

void AtomicFileWriter::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  if (streamFd_ >= 0) ::close(streamFd_);
  fd_ = streamFd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  unregisterTemporaryFile(tempSlot_);
  tempSlot_ = -1;
  temp_.clear();
}

void AtomicFileWriter::fail(const std::string& message, int error) {
  const std::string text = "cannot save " + what_ + " to '" + target_.string() + "': " + message + ": " + std::strerror(error);
  discard();
  throw Error(text);
}

void AtomicFileWriter::writeAll(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed", n < 0 ? errno : EIO);
    p += n;
    bytes -= size_t(n);
  }
}

void AtomicFileWriter::flushBuffer() {
  if (buffer_.empty()) return;
  writeAll(fd_, buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFileWriter::write(const void* data, size_t bytes) {
  if (committed_ || fd_ < 0) throw Error("cannot save " + what_ + " to '" + target_.string() + "': write after the writer closed");
  if (bytes == 0) return;
  if (buffer_.size() + bytes > kBufferBytes) flushBuffer();
  if (bytes >= kBufferBytes) {
    writeAll(fd_, data, bytes);
  } else {
    const char* p = static_cast<const char*>(data);
    buffer_.insert(buffer_.end(), p, p + bytes);
  }
  written_ += bytes;
}

void AtomicFileWriter::patch(uint64_t offset, const void* data, size_t bytes) {
  if (committed_ || fd_ < 0) throw Error("cannot save " + what_ + " to '" + target_.string() + "': patch after the writer closed");
  if (!patchable_ || offset + bytes > written_)
    throw Error("cannot save " + what_ + " to '" + target_.string() + "': internal error: patch outside the bytes written");
  flushBuffer();
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd_, p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed", n < 0 ? errno : EIO);
    p += n, bytes -= size_t(n), offset += uint64_t(n);
  }
}

void AtomicFileWriter::copySpoolToStream() {
  if (::lseek(fd_, 0, SEEK_SET) != 0) fail("cannot rewind the spool file", errno);
  std::vector<char> chunk(kBufferBytes);
  for (;;) {
    const ssize_t n = ::read(fd_, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read back the spool file", errno);
    if (n == 0) break;
    writeAll(streamFd_, chunk.data(), size_t(n));
  }
  ::close(fd_);
  fd_ = streamFd_;
  streamFd_ = -1;
}

void AtomicFileWriter::commit() {
  if (committed_) return;
  if (fd_ < 0) throw Error("cannot save " + what_ + " to '" + target_.string() + "': commit after a failure");
  flushBuffer();
  if (resolved_.kind == OutputKind::Stream) {
    if (streamFd_ >= 0) copySpoolToStream();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close failed", errno);
    committed_ = true;
    return;
  }
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  pauseForTests();
  if (::rename(temp_.c_str(), resolved_.path.c_str()) != 0) fail("rename from '" + temp_.string() + "' failed", errno);
  unregisterTemporaryFile(tempSlot_);
  tempSlot_ = -1;
  temp_.clear();
  committed_ = true;
  syncFolder(resolved_.path);
}

}  // namespace voxen::detail

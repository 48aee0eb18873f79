#include "report/text_output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "voxen/host/error.hpp"

namespace voxen::cli {

namespace {

namespace fs = std::filesystem;

void writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::system_error(errno, std::generic_category());
    done += size_t(n);
  }
}

}  // namespace

void writeTextFile(const std::string& path, const std::string& text, const std::string& flag) {
  auto fail = [&](const std::string& why) { throw Error("cannot write " + flag + " '" + path + "': " + why); };
  std::error_code error;
  // A symbolic link stays a link: the file it points to is replaced.
  fs::path target = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error) target = path;
  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && (S_ISCHR(existing.st_mode) || S_ISFIFO(existing.st_mode) || S_ISSOCK(existing.st_mode))) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(std::strerror(errno));
    try {
      writeAll(fd, text);
    } catch (const std::system_error& e) {
      ::close(fd);
      fail(e.what());
    }
    ::close(fd);
    return;
  }
  if (exists && !S_ISREG(existing.st_mode)) fail("not a regular file");
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
  const mode_t mode = exists ? (existing.st_mode & 07777) : 0666;  // a new file: 0666 less the umask
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) fail(std::strerror(errno));
  bool closed = false;
  try {
    if (exists) (void)::fchmod(fd, mode);  // the umask does not narrow an existing file's bits
    writeAll(fd, text);
    if (::fsync(fd) != 0) throw std::system_error(errno, std::generic_category());
    closed = true;
    if (::close(fd) != 0) throw std::system_error(errno, std::generic_category());
  } catch (const std::system_error& e) {
    if (!closed) ::close(fd);
    ::unlink(temp.c_str());
    fail(e.what());
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int why = errno;
    ::unlink(temp.c_str());
    fail(std::strerror(why));
  }
}

}  // namespace voxen::cli

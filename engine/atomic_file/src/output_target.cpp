#include "voxen/atomic_file/output_target.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "voxen/host/error.hpp"
#include "voxen/atomic_file/output_file.hpp"

namespace voxen {

namespace detail {

namespace {

constexpr int kMaxSymlinkHops = 40;  // Linux's MAXSYMLINKS

std::string quoted(const std::filesystem::path& path) {
  std::string text = "'";  // appended piece by piece: GCC 12 warns (falsely) on "'" + std::string
  text += path.string();
  text += "'";
  return text;
}

// The folder that will hold the temporary file and, after the rename, the output: it must
// exist and be writable (access() also reports a read-only file system).
void checkFolder(const std::filesystem::path& file, const std::string& where) {
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT) throw Error(where + ": folder " + quoted(folder) + " does not exist");
    if (errno == ENOTDIR) throw Error(where + ": " + quoted(folder) + " is not a folder (a file is in the way)");
    throw Error(where + ": cannot reach folder " + quoted(folder) + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(where + ": " + quoted(folder) + " is not a folder (a file is in the way)");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw Error(where + ": folder " + quoted(folder) + " is not writable: " + std::strerror(errno));
}

std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

}  // namespace

OutputTarget resolveOutputTarget(const std::filesystem::path& path, const std::string& context) {
  if (path.empty()) throw Error(context + " '': an empty path");
  const std::string where = context + " " + quoted(path);
  // A stream is opened by the name given, the kernel following the links: /dev/stdout
  // leads to /proc/self/fd/1, whose link text for a pipe ("pipe:[123]") is no path.
  struct stat followed {};
  if (::stat(path.c_str(), &followed) == 0 &&
      (S_ISCHR(followed.st_mode) || S_ISFIFO(followed.st_mode) || S_ISSOCK(followed.st_mode)))
    return OutputTarget{path, OutputKind::Stream};
  std::filesystem::path current = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0) {
      const int error = errno;
      if (error == ENOENT || error == ENOTDIR) {
        checkFolder(current, where);  // names the missing or blocking folder
        if (error == ENOENT) return OutputTarget{current, OutputKind::NewFile};
      }
      throw Error(where + ": cannot inspect " + quoted(current) + ": " + std::strerror(error));
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops == kMaxSymlinkHops) throw Error(where + ": too many levels of symbolic links");
      std::error_code ec;
      const std::filesystem::path link = std::filesystem::read_symlink(current, ec);
      if (ec) throw Error(where + ": cannot read symbolic link " + quoted(current) + ": " + ec.message());
      current = link.is_absolute() ? link : current.parent_path() / link;
      continue;
    }
    const std::string through = current == path ? "" : " (the symbolic link's target " + quoted(current) + ")";
    if (S_ISDIR(st.st_mode)) throw Error(where + ": is a directory" + through);
    if (S_ISBLK(st.st_mode))
      throw Error(where + ": is a block device" + through + "; refusing to write over a disk");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return OutputTarget{current, OutputKind::Stream};  // appeared since the stat above
    if (!S_ISREG(st.st_mode)) throw Error(where + ": not a regular file" + through);
    // No write bit for anyone: the owner made it read-only on purpose. Root could replace it,
    // but a careful tool refuses, as cp does for other users and sed -i would for root.
    if ((st.st_mode & 0222) == 0)
      throw Error(where + ": the file is read-only (mode " + octalMode(st.st_mode) + ")" + through +
                  "; make it writable or remove it first");
    if (::access(current.c_str(), W_OK) != 0)
      throw Error(where + ": the file is not writable" + through + ": " + std::strerror(errno));
    checkFolder(current, where);
    return OutputTarget{current, OutputKind::RegularFile, mode_t(st.st_mode & 07777), st.st_uid, st.st_gid};
  }
}

}  // namespace detail

void checkOutputPath(const std::filesystem::path& path) { detail::resolveOutputTarget(path, "cannot write"); }

}  // namespace voxen

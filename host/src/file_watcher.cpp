#include "voxen/host/file_watcher.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "voxen/host/error.hpp"

namespace voxen {

namespace fs = std::filesystem;

namespace {
constexpr uint32_t kFolderEvents =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF;
}

FileWatcher::FileWatcher() {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw Error(std::string("inotify_init1 failed: ") + std::strerror(errno));
}

FileWatcher::~FileWatcher() {
  if (fd_ >= 0) close(fd_);
}

void FileWatcher::addWatch(const fs::path& folder) {
  const int wd = inotify_add_watch(fd_, folder.c_str(), kFolderEvents);
  if (wd < 0) throw Error("cannot watch '" + folder.string() + "': " + std::strerror(errno));
  folders_[wd] = folder;
}

void FileWatcher::watchTree(const fs::path& root) {
  if (!fs::is_directory(root)) throw Error("shader folder '" + root.string() + "' does not exist");
  addWatch(root);
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_directory()) addWatch(entry.path());
}

std::set<fs::path> FileWatcher::poll() {
  std::set<fs::path> changed;
  alignas(inotify_event) char buffer[16384];
  for (;;) {
    const ssize_t length = read(fd_, buffer, sizeof buffer);
    if (length <= 0) break;  // EAGAIN: nothing more queued
    for (ssize_t offset = 0; offset < length;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
      offset += ssize_t(sizeof(inotify_event) + event->len);
      const auto folder = folders_.find(event->wd);
      if (folder == folders_.end() || event->len == 0) continue;
      const fs::path path = folder->second / event->name;
      if (event->mask & IN_ISDIR) {
        if (event->mask & (IN_CREATE | IN_MOVED_TO)) watchTree(path);
        continue;
      }
      // IN_CREATE alone is an empty new file; its IN_CLOSE_WRITE follows.
      if (event->mask & (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)) changed.insert(path);
    }
  }
  return changed;
}

}  // namespace voxen

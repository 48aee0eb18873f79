#pragma once
// Watches folder trees with inotify and reports which files changed. Folders are watched,
// not files, because editors save by writing a temporary file and renaming it over the
// original, which replaces the inode a file watch would be attached to.
#include <filesystem>
#include <set>
#include <string>
#include <unordered_map>

namespace voxen {

class FileWatcher {
 public:
  FileWatcher();
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  // Watches `root` and every folder below it (and folders created there later).
  void watchTree(const std::filesystem::path& root);
  // Files written, renamed into place or deleted since the last call; never blocks.
  std::set<std::filesystem::path> poll();

 private:
  void addWatch(const std::filesystem::path& folder);
  int fd_ = -1;
  std::unordered_map<int, std::filesystem::path> folders_;
};

}  // namespace voxen

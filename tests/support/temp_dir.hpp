#pragma once
// A uniquely named folder under the system temp folder, removed with its contents when the
// object dies; files are written the way editors save them (temp file, then rename).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace vt {

class TempDir {
 public:
  // mkdtemp creates the folder atomically under a name no other process holds, so that
  // cases that ctest runs in parallel processes never share one, even where pids repeat
  // (processes of several containers over one /tmp).
  explicit TempDir(const std::string& tag) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("voxen-test-" + tag + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot create a temp folder like " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& relative) const { return path_ / relative; }

  // Writes in place (creating folders as needed).
  void write(const std::string& relative, const std::string& text) const {
    const auto target = path_ / relative;
    std::filesystem::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + target.string());
  }

  // Writes a sibling temp file and renames it over `relative`, as editors save.
  void saveLikeEditor(const std::string& relative, const std::string& text) const {
    const auto target = path_ / relative;
    const auto temp = target.parent_path() / std::string(".").append(target.filename().string()).append(".swp~");
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out) throw std::runtime_error("cannot write " + temp.string());
    }
    std::filesystem::rename(temp, target);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace vt

#pragma once
// Where hot reload finds the GLSL sources when the command line names no folder: the source
// tree's shaders/ that the binary was built from (compiled in as VOXEN_SOURCE_SHADER_DIR)
// while it is still there, else the shaders/ folder beside the executable, which is where
// scripts/bundle.sh puts a copy (a bundle unpacked elsewhere has no source tree). Shared by
// the voxen tool and the samples (target voxen_apps_common).
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace voxen::apps {

struct ShaderSourceDir {
  std::optional<std::filesystem::path> dir;  // unset: no folder found
  std::string looked;                        // the folders looked at, for saying why there is none
};

inline ShaderSourceDir findShaderSourceDir(const std::filesystem::path& compiledIn) {
  namespace fs = std::filesystem;
  // A GLSL tree has common/ (the shared includes): a folder that merely happens to be called
  // shaders (a build output, say) is not taken for one.
  const auto isShaderTree = [](const fs::path& dir) {
    std::error_code error;
    return fs::is_directory(dir / "common", error);
  };
  ShaderSourceDir found;
  found.looked = compiledIn.string();
  if (isShaderTree(compiledIn)) {
    found.dir = compiledIn;
    return found;
  }
  // /proc/self/exe is the executable itself with links resolved, wherever it was started from.
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    found.looked += " (the executable's own folder is unknown: /proc/self/exe: " + error.message() + ")";
    return found;
  }
  const fs::path beside = exe.parent_path() / "shaders";
  found.looked += ", " + beside.string();
  if (isShaderTree(beside)) found.dir = beside;
  return found;
}

}  // namespace voxen::apps

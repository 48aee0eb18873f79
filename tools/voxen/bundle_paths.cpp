#include "bundle_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace voxen::cli {

namespace {

void prependToPath(const char* variable, const std::string& folder) {
  const char* old = std::getenv(variable);
  const std::string value = old && *old ? folder + ":" + old : folder;
  ::setenv(variable, value.c_str(), 1);
}

}  // namespace

void pointRosAtBundle() {
  std::error_code error;
  // The executable's own folder, not the working directory's: the bundle may be run from anywhere.
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return;
  const std::filesystem::path folder = executable.parent_path();
  if (!std::filesystem::is_regular_file(folder / "share" / "rosbag_storage" / "package.xml", error)) return;
  prependToPath("ROS_PACKAGE_PATH", (folder / "share").string());
  prependToPath("CMAKE_PREFIX_PATH", folder.string());
}

}  // namespace voxen::cli

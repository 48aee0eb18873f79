#pragma once
// What `voxen --version` prints. Defined in the build folder's voxen_version.cpp, which CMake
// writes at configure time from version.cpp.in (the project version and `git describe`).
#include <string>

namespace voxen::cli {

// "voxen 0.1.0 (git 5d8c77d-dirty)", or "voxen 0.1.0" when the build did not know its commit.
std::string versionText();

}  // namespace voxen::cli

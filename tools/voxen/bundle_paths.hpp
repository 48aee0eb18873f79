#pragma once

namespace voxen::cli {

// In a bundle made by scripts/bundle.sh, librosbag-storage's plugin description sits in
// share/rosbag_storage beside the executable, and its plugin library in lib/. pluginlib finds
// a package through ROS_PACKAGE_PATH and its libraries through CMAKE_PREFIX_PATH, so when
// that folder exists the bundle's folders are put first in both (values already set are
// kept after them). Outside a bundle this does nothing. Call it before any bag is opened.
void pointRosAtBundle();

}  // namespace voxen::cli

#pragma once
// Creating a rosbag::Bag with an error that names the remedy: shared by the bag reader
// (voxen_rosbag) and the bag writer of the test data. Only sources that link librosbag-storage
// include it.
#include <rosbag/bag.h>

#include <exception>
#include <filesystem>
#include <optional>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen::detail {

// rosbag::Bag's constructor loads librosbag-storage's encryption plugin through pluginlib,
// which throws when the package's description files are missing (a copied binary on a machine
// without Debian's librosbag-storage4d): said in words that name the remedy.
inline void makeBag(std::optional<rosbag::Bag>& bag, const std::filesystem::path& path) {
  try {
    bag.emplace();
  } catch (const std::exception& e) {
    throw Error(path.string() + ": ROS 1 bags cannot be opened here: librosbag-storage's plugin description "
                "(share/rosbag_storage) was not found: " + e.what() +
                " (install Debian's librosbag-storage4d, or use a Voxen bundle, which carries it)");
  }
}

}  // namespace voxen::detail

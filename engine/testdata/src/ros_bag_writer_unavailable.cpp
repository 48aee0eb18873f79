// The bag writer of a build without librosbag-storage (VOXEN_ROSBAG=OFF or the package missing):
// `voxen generate --recording run.bag` and the tests that write bags get an error that says why
// (the tests that need bags are not built then: tests/CMakeLists.txt). MCAP recordings work.
#include "voxen/host/error.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"

namespace voxen {

struct RosBagWriter::Impl {};

RosBagWriter::RosBagWriter(const std::filesystem::path& path, const std::string&) {
  throw Error(path.string() + ": cannot write a ROS 1 bag: this build has no ROS 1 bag support (VOXEN_ROSBAG=OFF or "
              "librosbag-storage-dev missing); write an .mcap recording instead");
}

RosBagWriter::~RosBagWriter() = default;

void RosBagWriter::write(const std::string&, int64_t, const std::string&, const std::string&, const std::string&,
                         std::span<const uint8_t>) {}

void RosBagWriter::close() {}

}  // namespace voxen

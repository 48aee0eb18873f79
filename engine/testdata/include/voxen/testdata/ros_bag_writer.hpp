#pragma once
// ROS 1 bags written through librosbag-storage, from messages already serialized (ROS 1
// encoding, ros_messages.hpp): for the tests and `voxen generate --recording`.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace voxen {

// Writes a ROS 1 bag of raw messages through librosbag-storage (tests, `voxen generate`).
class RosBagWriter {
 public:
  // compression: "" (none), "lz4" or "bz2". Writes to a temporary beside `path`, renamed by close().
  RosBagWriter(const std::filesystem::path& path, const std::string& compression);
  ~RosBagWriter();
  // type e.g. "sensor_msgs/PointCloud2", with its MD5 sum and full definition. timeNs is the
  // bag's receive time; below 1 ns (ROS 1's minimum) it is stored as 1 ns.
  void write(const std::string& topic, int64_t timeNs, const std::string& type, const std::string& md5,
             const std::string& definition, std::span<const uint8_t> bytes);
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen

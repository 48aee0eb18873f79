#pragma once
// A recording's (ROS 1 bag, MCAP) point clouds and tf, message by message in the order they
// were recorded, as their serialized bytes with their type and encoding: what `voxen play`
// sends to a stream's clients as a robot's bridge would. Topics of other types are listed
// and left out (Voxen decodes only sensor_msgs/PointCloud2 and tf2_msgs/TFMessage).
//
// Threads: one thread at a time.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace voxen::detail {

struct RecordingStream {
  std::string topic;
  std::string type;      // "sensor_msgs/PointCloud2" (ROS 1) or "sensor_msgs/msg/PointCloud2" (ROS 2)
  std::string encoding;  // "ros1" or "cdr"
  uint64_t messages = 0;
};

class RecordingMessages {
 public:
  // Throws Error naming the file (not a recording, unreadable, no cloud or tf topic).
  explicit RecordingMessages(const std::filesystem::path& path);
  ~RecordingMessages();
  RecordingMessages(RecordingMessages&&) noexcept;
  RecordingMessages& operator=(RecordingMessages&&) noexcept;

  const std::vector<RecordingStream>& streams() const;
  const std::vector<std::string>& leftOut() const;  // "topic (type)" of the topics not played
  uint64_t messages() const;                        // over every stream
  // The next message by recording time: its stream (index into streams()), the container's
  // time in nanoseconds, and its bytes (replacing `bytes`); false after the last one.
  bool next(size_t& stream, int64_t& timeNs, std::vector<uint8_t>& bytes);
  // Back to the first message (a player's --loop).
  void rewind();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::detail

#pragma once
// A robot's recording (a ROS 1 bag or an MCAP file) as topics of timed messages, each read
// as its serialized bytes: what the point input and `voxen inspect` need, whatever the
// container. The messages themselves are decoded by ros_messages.hpp.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/input/tf_buffer.hpp"

namespace voxen::detail {

struct RecordingTopic {
  std::string name;
  std::string type;  // as recorded: "sensor_msgs/PointCloud2" (ROS 1) or "sensor_msgs/msg/PointCloud2" (ROS 2)
  std::string encoding;  // as recorded: "ros1", "cdr", ...
  uint64_t messages = 0;
};

struct RecordedMessage {
  uint32_t topic = 0;     // index into Recording::topics()
  int64_t timeNs = 0;     // the container's time (bag receive time, MCAP log time)
  uint64_t fileBytes = 0; // the file's bytes this message accounts for, for progress
  uint64_t handle = 0;    // the reader's own locator
};

class Recording {
 public:
  virtual ~Recording() = default;
  virtual const char* formatName() const = 0;  // "ROS 1 bag", "MCAP"
  virtual const std::filesystem::path& path() const = 0;
  virtual uint64_t fileBytes() const = 0;
  virtual const std::vector<RecordingTopic>& topics() const = 0;
  // [first, last] container time over every message; nullopt when there are none.
  virtual std::optional<std::pair<int64_t, int64_t>> timeSpan() const = 0;
  // The messages of the topics given, by container time (ties: file order).
  virtual std::vector<RecordedMessage> index(std::span<const uint32_t> topics) = 0;
  // A message's bytes, replacing `out`; one thread at a time. Throws Error naming the file.
  virtual void read(const RecordedMessage& message, std::vector<uint8_t>& out) = 0;
  // Whether readInPlace may run on any number of threads at once (a memory-mapped MCAP
  // file); a bag is read through librosbag-storage, one thread at a time.
  virtual bool concurrentReads() const { return false; }
  // A message's bytes without a copy, valid until this thread's next readInPlace; only where
  // concurrentReads(). Throws Error naming the file.
  virtual std::span<const uint8_t> readInPlace(const RecordedMessage& message) const;
};

// Opens a bag or an MCAP file, told by its content; throws Error naming the file.
std::unique_ptr<Recording> openRecording(const std::filesystem::path& path);
std::unique_ptr<Recording> openRosBag(const std::filesystem::path& path);  // in voxen_rosbag
// How openRecording reaches the bag reader, which lives in voxen_rosbag (ros_bag_input.hpp):
// enableRosBagInput() sets it; null (the default) refuses bags with an error that says why.
using RecordingOpener = std::unique_ptr<Recording> (*)(const std::filesystem::path&);
void setRosBagOpener(RecordingOpener opener);
std::unique_ptr<Recording> openMcap(const std::filesystem::path& path);

// Walks a ROS 1 bag's records and throws Error naming the file and the byte where a length,
// offset or chunk is corrupt: librosbag-storage trusts them and would crash.
void checkRosBagStructure(const std::filesystem::path& path);

// The message encoding a topic's bytes are in, or an Error naming the topic and encoding.
ros::MessageEncoding topicEncoding(const Recording& recording, const RecordingTopic& topic);
bool isPointCloud2(const RecordingTopic& topic);
bool isTfMessage(const RecordingTopic& topic);
// "/tf" and "/tf_static" (also without the slash): the topics tf is read from.
bool isTfTopic(const RecordingTopic& topic, bool& isStatic);

// The cloud topic to map: the one named (Error naming the topics there are when it is
// missing or not a PointCloud2), or the only PointCloud2 topic (Error when there are none
// or several, asking for --cloud-topic).
struct CloudTopicChoice {
  uint32_t topic = 0;
  ros::MessageEncoding encoding = ros::MessageEncoding::Ros1;
};
CloudTopicChoice chooseCloudTopic(const Recording& rec, const std::string& wanted);

// What a cloud topic's clouds hold: the layout chosen from its first cloud with points (empty
// clouds at the start, as drivers publish them, are passed over) and the next cloud with
// points (which tells offsets from absolute times near a clock's 0).
struct TopicClouds {
  ros::CloudLayout layout;
  std::string frameId;                // of that first cloud
  uint64_t pointsPerCloud = 0;        // width x height of that first cloud
  uint32_t width = 0, height = 0;
  std::vector<ros::PointField> fields;
};
// Error when every cloud is empty, unless `allEmpty` is given: then it is set (true) and an
// empty TopicClouds returned (a recording of no points, which voxen map refuses as an empty
// map unless --allow-empty).
TopicClouds chooseTopicLayout(Recording& rec, const std::vector<RecordedMessage>& clouds, ros::MessageEncoding encoding,
                              const std::string& topic, bool* allEmpty = nullptr);

// frameName (a frame without its leading '/'): voxen/input/tf_buffer.hpp.

// Every /tf and /tf_static message of the recording in one buffer. A transform TfBuffer
// refuses (a second parent, a non-finite value) is set aside with its error, naming the file,
// topic and message: it matters only if the sensor's chain passes through its frame.
struct TfData {
  TfBuffer tf;
  size_t transforms = 0;
  std::vector<std::pair<std::string, std::string>> refused;  // child frame, error (the first 64)
  size_t refusedCount = 0;
  // Links given two different transforms at one stamp (TfBuffer::conflicts), and the topic
  // each child frame's transforms came on (for messages).
  std::vector<TfConflict> conflicts;
  std::map<std::string, std::string> topicOf;
  std::string file;  // the recording's path
  // Throws the error of a refused transform of a frame on the chain, and of a conflict on
  // one of the chain's links (naming the topic, both frames, the stamp and both translations).
  void requireOnChain(const TfBuffer::Chain& chain) const;
  std::string refusedNote() const;  // empty when none was refused
  // Conflicts on links off the chain, which do not move the points: a warning with counts;
  // empty when none.
  std::string conflictWarning(const TfBuffer::Chain& chain) const;
};
// Error naming the file when it has neither topic, or naming the message that does not decode.
TfData loadTf(Recording& rec);

// The sensor frame's chain into the fixed frame (`fixedFrame`, or the root of the tree above
// the sensor when empty; both without a leading '/'), as voxen map and inspect resolve it.
// Error naming the file for unknown or unconnected frames (with the transforms set aside,
// if any), and for a transform set aside on the chain.
TfBuffer::Chain resolveSensorChain(const Recording& rec, const TfData& tf, const std::string& fixedFrame,
                                   const std::string& sensorFrame);
// "map -> odom -> lidar".
std::string chainText(const TfBuffer::Chain& chain);

// Fills what `voxen inspect` shows of a bag or an MCAP file.
void inspectRosRecording(const std::filesystem::path& path, RecordingInfo& info);

}  // namespace voxen::detail

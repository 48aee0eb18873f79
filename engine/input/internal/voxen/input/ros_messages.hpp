#pragma once
// The two ROS messages Voxen reads from recordings, sensor_msgs/PointCloud2 and
// tf2_msgs/TFMessage, decoded from either serialization they are stored in:
//   Ros1  ROS 1 bags: little-endian, packed, uint32 length before strings and arrays;
//         std_msgs/Header is (uint32 seq, time stamp = uint32 sec + uint32 nsec, string frame_id).
//   Cdr   ROS 2 (MCAP "cdr"): a 4-byte encapsulation header (0x00 0x00 CDR_BE or 0x00 0x01
//         CDR_LE, then 2 option bytes), then XCDR1 with every primitive aligned to its size
//         counted from the end of that header; strings carry their NUL in the length;
//         std_msgs/msg/Header is (int32 sec, uint32 nanosec, string frame_id), no seq.
// Decoders never copy the cloud's point data: PointCloud2::data points into the message's
// bytes, which must outlive it. The encoders serve the tests and `voxen generate`.
#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxen::ros {

enum class MessageEncoding { Ros1, Cdr };

// A stamp in nanoseconds as seconds, the one way every reader converts (tf stamps, clouds'
// header.stamp, container times): whole seconds and the remainder apart (both truncated
// toward zero), each exact as a double, so only the sum rounds, where double(ns) * 1e-9
// would round twice; the same stamp always gives the same double.
inline double stampSeconds(int64_t ns) { return double(ns / 1000000000) + double(ns % 1000000000) * 1e-9; }

// sensor_msgs/PointField datatypes.
enum class PointFieldType : uint8_t { Int8 = 1, Uint8 = 2, Int16 = 3, Uint16 = 4, Int32 = 5, Uint32 = 6, Float32 = 7, Float64 = 8 };
// Bytes of one value; 0 for a datatype outside 1..8.
size_t pointFieldTypeSize(uint8_t datatype);
// "float32", "uint16", ...; "datatype 13" for an unknown one.
std::string pointFieldTypeName(uint8_t datatype);

struct PointField {
  std::string name;
  uint32_t offset = 0;
  uint8_t datatype = 0;  // a PointFieldType, kept raw so an unknown one can be reported
  uint32_t count = 1;
};

struct PointCloud2 {
  int64_t stampNs = 0;  // header.stamp in nanoseconds since the epoch (of the recording's clock)
  std::string frameId;
  uint32_t height = 1, width = 0;
  std::vector<PointField> fields;
  bool isBigEndian = false;
  uint32_t pointStep = 0, rowStep = 0;
  std::span<const uint8_t> data;  // into the decoded message's bytes
  bool isDense = true;
};

// One geometry_msgs/TransformStamped: maps coordinates in childFrame to parentFrame
// (p_parent = rotation * p_child + translation), as tf does.
struct TransformStamped {
  int64_t stampNs = 0;
  std::string parentFrame;  // header.frame_id
  std::string childFrame;   // child_frame_id
  glm::dvec3 translation{0.0};
  glm::dquat rotation{1.0, 0.0, 0.0, 0.0};  // glm order w, x, y, z; the message stores x, y, z, w
};

// Both throw voxen::Error beginning with `where` (the caller names file, topic and message
// index) and saying what is wrong: the byte offset where the message ends too early, a
// length past the end, an unknown CDR encapsulation, data shorter than row_step x height,
// point_step smaller than a field's end. Bytes left over after the message are allowed.
PointCloud2 decodePointCloud2(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where);
std::vector<TransformStamped> decodeTfMessage(std::span<const uint8_t> bytes, MessageEncoding encoding,
                                              const std::string& where);

// Little-endian for Cdr (CDR_LE); `bigEndianCdr` writes CDR_BE (tests of the decoder).
std::vector<uint8_t> encodePointCloud2(const PointCloud2& cloud, MessageEncoding encoding, bool bigEndianCdr = false);
std::vector<uint8_t> encodeTfMessage(std::span<const TransformStamped> transforms, MessageEncoding encoding,
                                     bool bigEndianCdr = false);

// Type names, ROS 1 MD5 sums and full message definitions (as `rosbag` stores them in a
// connection record: the message text, then each dependency after a line of 80 '='), and the
// ROS 2 schema text (MCAP schema encoding "ros2msg"), for writers.
inline constexpr std::string_view kPointCloud2Ros1Type = "sensor_msgs/PointCloud2";
inline constexpr std::string_view kPointCloud2Ros2Type = "sensor_msgs/msg/PointCloud2";
inline constexpr std::string_view kTfMessageRos1Type = "tf2_msgs/TFMessage";
inline constexpr std::string_view kTfMessageRos2Type = "tf2_msgs/msg/TFMessage";
const std::string& pointCloud2Md5();         // "1158d486dd51d683ce2f1be655c3c181"
const std::string& tfMessageMd5();           // "94810edda583a504dfda3829e70d7eec"
const std::string& pointCloud2Ros1Definition();
const std::string& tfMessageRos1Definition();
const std::string& pointCloud2Ros2Schema();
const std::string& tfMessageRos2Schema();

}  // namespace voxen::ros

#pragma once
// A recording's image topics and which of them hold depth: the first message of each
// sensor_msgs/Image and sensor_msgs/CompressedImage topic tells its encoding and size. Shared
// by the depth source (choosing the topics) and `voxen inspect` (listing them).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recording/recording.hpp"
#include "voxen/input/image_messages.hpp"

namespace voxen::detail {

bool isImageTopic(const RecordingTopic& topic);
bool isCompressedImageTopic(const RecordingTopic& topic);
bool isCameraInfoTopic(const RecordingTopic& topic);

struct ImageTopic {
  uint32_t topic = 0;        // index into Recording::topics()
  bool compressed = false;   // CompressedImage
  std::string encoding;      // Image: its encoding; CompressedImage: its format string
  uint32_t width = 0, height = 0;  // of the first message (0 when it cannot be told)
  bool depth = false;        // 16UC1/32FC1 Image, or a compressedDepth CompressedImage
  bool colour = false;       // an Image of a colour encoding (colour_decode.hpp), or a CompressedImage not compressedDepth
  std::string error;         // why the first message did not decode, if it did not
};
// Every Image and CompressedImage topic with at least one message, by topic index.
std::vector<ImageTopic> describeImageTopics(Recording& rec);

// The depth topic: the one named (SettingError naming DepthSourceOptions::depthTopic when it
// is missing or not an image topic, listing the depth topics), or the only depth topic (Error
// when there is none, SettingError when there are several).
const ImageTopic& chooseDepthTopic(const Recording& rec, const std::vector<ImageTopic>& images, const std::string& wanted);

// ".../image_raw" -> ".../camera_info"; ".../image_raw/compressedDepth" -> ".../camera_info".
std::string cameraInfoSibling(const std::string& imageTopic, bool compressed);

// The camera_info topic: the one named or the sibling; SettingError naming
// DepthSourceOptions::cameraInfoTopic (listing the CameraInfo topics) when it is missing or
// not a CameraInfo.
uint32_t chooseCameraInfoTopic(const Recording& rec, const std::string& imageTopic, bool compressed, const std::string& wanted);

// The camera of a camera_info topic: its first message, every later one checked to agree.
// Error naming the file, topic and message for one that does not decode or disagrees.
ros::CameraInfo readCameraInfo(Recording& rec, uint32_t topic);

// "640 x 480, fx 525 fy 525 cx 319.5 cy 239.5" (K's), "; plumb_bob D = ...".
std::string cameraInfoText(const ros::CameraInfo& info);

}  // namespace voxen::detail

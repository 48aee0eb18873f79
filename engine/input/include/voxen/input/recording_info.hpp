#pragma once
// What a recording holds, for `voxen inspect`: its format, points, fields and their types,
// the span of its per-point times, and what `voxen map` would take from it by default.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "voxen/input/input_format.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen {

struct RecordingField {
  std::string name;
  std::string type;  // as the format names it: "float32", "F4", "U2"
};

struct RecordingInfo {
  InputFormat format = InputFormat::Ply;
  std::string layout;  // the body or layout, e.g. "binary_little_endian", "3 files, binary", "12 scans"
  uint64_t points = 0;
  std::vector<RecordingField> fields;
  std::string timeField, intensityField;           // what voxen map reads; empty when none
  std::optional<std::pair<double, double>> times;  // over the finite per-point times
  // Without a trajectory: where voxen map takes the origins from, or (when it cannot map the
  // recording without one) why not.
  std::string origins, withoutTrajectory;
  std::vector<std::string> notes;  // the format's own facts: VIEWPOINT, poses file, ...
  // What a setting answers (a PCD VIEWPOINT read one of two ways when no reading was given).
  std::vector<SettingWarning> warnings;

  // ROS 1 bags and MCAP files:
  struct Topic {
    std::string name, type, encoding;
    uint64_t messages = 0;
  };
  std::vector<Topic> topics;
  // The tf tree, one line per link: "map -> odom (moving, 200 stamps, 0.5 to 10.5 s)".
  std::vector<std::string> frames;
  std::string cloudTopic, sensorFrame, fixedFrame;  // what voxen map would use by default

  // Depth images (voxen/input/depth_source.hpp): a recording's depth image topics, or a TUM
  // RGB-D folder's depth.txt.
  struct DepthTopic {
    std::string name, type, encoding;  // encoding: an Image's, a CompressedImage's format
    uint32_t width = 0, height = 0;    // of the first image
    uint64_t messages = 0;
    // "/camera/depth/camera_info: 640 x 480, K fx 525 fy 525 cx 319.5 cy 239.5, no distortion",
    // or why there is no usable camera.
    std::string cameraInfo;
  };
  std::vector<DepthTopic> depthTopics;
  // Colour images beside them (DepthSourceOptions::withColour): a recording's colour image
  // topics (Images of a colour encoding, CompressedImages that are not compressedDepth), or a
  // TUM RGB-D folder's rgb.txt.
  struct ColourTopic {
    std::string name, type, encoding;  // encoding: an Image's, a CompressedImage's format
    uint32_t width = 0, height = 0;    // of the first image; 0 when it cannot be told (JPEG)
    uint64_t messages = 0;
    // Whether a depth source reads it ("") and why not, e.g. "JPEG: not read (no JPEG decoder
    // among Voxen's dependencies)", "read as colour when named, never chosen by itself" (mono8),
    // "not the depth images' size (640 x 480): not read as their colour", "encoding not read as
    // colour (rgb8, ...)", or the error its first image gave.
    std::string note;
  };
  std::vector<ColourTopic> colourTopics;
};

// Reads the headers and one column of every point (the time, or x without one), so a body
// that is short, long or malformed is an Error as when mapping. ROS 1 bags and MCAP files:
// their topics, the tf tree, and the first cloud's fields (every tf message is decoded, the
// clouds are not: their points are counted as the first cloud's times the clouds).
// `pcdViewpoint`: how PCD files' VIEWPOINT is read, as RayReaderOptions::pcdViewpoint (a
// SettingError for other formats). Depth image topics: the first image of each is decoded, and
// every camera_info message; colour image topics likewise. TUM RGB-D folders: depth.txt, the
// first depth PNG, groundtruth.txt, rgb.txt and its first PNG's header.
RecordingInfo inspectRecording(const std::filesystem::path& path, std::optional<PcdViewpoint> pcdViewpoint = std::nullopt);

}  // namespace voxen

#pragma once
// A synthetic depth-camera walk (depth_camera.hpp) written as a robot or a dataset stores it,
// chosen by the path:
// - NAME.bag (ROS 1) or NAME.mcap (ROS 2, CDR): sensor_msgs/Image 16UC1 (millimetres) on
//   /camera/depth/image_rect_raw and sensor_msgs/CameraInfo (plumb_bob, zero distortion, K, R
//   identity, P = [K | 0]) on /camera/depth/camera_info, both in camera_depth_optical_frame,
//   with tf: map -> odom (identity) and base_link -> camera_depth_optical_frame on /tf_static,
//   odom -> base_link on /tf at every frame's stamp (so a reader's pose at the stamp is exact);
//   with colour (DepthCameraConfig::colour), sensor_msgs/Image rgb8 on /camera/color/image_raw
//   at the depth image's stamp, in the depth image's frame: registered to it, pixel for pixel,
//   as a RealSense's colour beside its aligned_depth_to_color (the depth camera_info is its
//   camera; no second camera_info is written);
// - anything else: a TUM RGB-D folder: depth.txt ("timestamp depth/TIMESTAMP.png"), depth/
//   with one 16-bit grey PNG per frame (5000 units per metre, 0: no measurement),
//   groundtruth.txt ("timestamp tx ty tz qx qy qz qw", the optical frame in the map) and
//   camera_info.yaml (ROS camera_calibration's YAML: K, D, R, P, plumb_bob); with colour,
//   rgb.txt ("timestamp rgb/TIMESTAMP.png", the depth image's timestamp) and rgb/ with one
//   8-bit RGB PNG per frame, registered to the depth image.
// Every output is written whole or not at all: files through a temporary renamed into
// place, the folder built beside its target and renamed (an existing target folder must be
// empty).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "voxen/testdata/depth_camera.hpp"

namespace voxen {

enum class DepthRecordingFormat { RosBag, Mcap, TumFolder };
// By extension: .bag, .mcap; anything else (a trailing '/', no extension) is a TUM folder.
DepthRecordingFormat depthRecordingFormat(const std::filesystem::path& path);
const char* depthRecordingFormatName(DepthRecordingFormat format);  // "ROS 1 bag", "MCAP", "TUM RGB-D folder"

struct DepthRecordingOptions {
  std::string compression;  // "" (none); bags: "lz4" or "bz2"; MCAP: "zstd" or "lz4"; not for folders
  std::string depthTopic = "/camera/depth/image_rect_raw";
  std::string infoTopic = "/camera/depth/camera_info";
  std::string colourTopic = "/camera/color/image_raw";  // with DepthCameraConfig::colour
  std::string opticalFrame = "camera_depth_optical_frame";
};

struct DepthRecordingSummary {
  uint64_t frames = 0, validPixels = 0, transforms = 0;
  uint64_t colourImages = 0;  // written (DepthCameraConfig::colour: one per frame)
  uint64_t bytes = 0;  // the file's size, or the folder's files together
  double seconds = 0.0;
};

// Throws Error for an unknown compression, a non-empty target folder, or I/O failure; the
// target is untouched then. progress (optional) runs after every frame is written.
DepthRecordingSummary writeDepthRecording(
    const SyntheticScene& scene, const DepthCameraConfig& config, const std::filesystem::path& path,
    const DepthRecordingOptions& options = {},
    const std::function<void(const GeneratedDepthFrame&, const DepthRecordingSummary&)>& progress = {});

}  // namespace voxen

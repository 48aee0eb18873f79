#pragma once
// Depth camera frames from recordings, as voxen::DepthFrame (voxen/map/depth_image.hpp): the
// depth images of a ROS 1 bag or an MCAP file, or of a TUM RGB-D folder, each with its pinhole
// camera and the pose of its optical frame at the image's time.
//
// ROS 1 bags and MCAP files (ROS 1 or ROS 2 CDR messages):
//   images   sensor_msgs/Image of encoding 16UC1 (millimetres) or 32FC1 (metres), or
//            sensor_msgs/CompressedImage in compressed_depth_image_transport's PNG form
//            ("16UC1; compressedDepth png", "32FC1; compressedDepth png"). The depth topic is
//            DepthSourceOptions::depthTopic, or the recording's only depth image topic (an
//            Image topic whose first message has a depth encoding, or a compressedDepth topic).
//   camera   sensor_msgs/CameraInfo from cameraInfoTopic, or the image topic's sibling
//            camera_info (".../image_raw" and ".../image_raw/compressedDepth" ->
//            ".../camera_info"). Its first message is the camera; later ones must agree (a
//            calibration that changes is an Error). plumb_bob distortion is undistorted by a
//            nearest-neighbour map computed once (details: internal depth_decode.hpp): the
//            frames' intrinsics are P's fx fy cx cy as image_proc rectifies (K's when P is
//            zero); other distortion models are refused by name unless every coefficient is 0.
//   poses    tf at the image's header.stamp, from the image's header.frame_id (the optical
//            frame, z forward) into fixedFrame (default: the root of its tf tree), as the
//            point clouds' (TfBuffer: translations interpolated linearly, rotations by slerp).
//   order    frames in recording order; a frame stamped before the one handed out before it,
//            and a frame whose stamp has no pose (outside the tf data), is skipped and counted.
// TUM RGB-D folders (https://cvg.cit.tum.de/data/datasets/rgbd-dataset/file_formats):
//   depth.txt (`timestamp filename` lines, '#' comments), the 16-bit PNGs it names (depth =
//   value / 5000 m), groundtruth.txt (`timestamp tx ty tz qx qy qz qw`, the optical frame's
//   pose, interpolated at each image's time as Trajectory does), and the camera from
//   cameraInfoFile, a ROS camera_calibration YAML file (image_width, image_height,
//   camera_matrix, distortion_model, distortion_coefficients, rectification_matrix,
//   projection_matrix); without one, the folder's camera_info.yaml (as `voxen generate` writes
//   it; the TUM sequences carry none, so the file must be given for them).
//
// Depth 0, NaN and infinite are no measurement, as DepthFrame says; with maxRange > 0 the
// reader makes pixels deeper than it no measurement too (0 in 16-bit images, NaN in float ones),
// so every consumer sees the same images.
//
// Errors (voxen::Error, or voxen::SettingError naming the DepthSourceOptions field) name the
// file, the topic and the message index or the image's file, and the field at fault:
// "depth.bag: topic /camera/depth/image_raw, message 12: encoding 'bgr8' is not a depth
// encoding (16UC1, 32FC1)".
//
// Threads: one DepthSource is used by one thread at a time (next() reads the file); separate
// DepthSources are independent and may run on separate threads.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "voxen/map/depth_image.hpp"

namespace voxen {

struct DepthSourceOptions {
  std::string depthTopic;       // empty: the recording's only depth image topic
  std::string cameraInfoTopic;  // empty: the depth topic's camera_info sibling
  std::string fixedFrame;       // empty: the root of the tf tree above the camera's frame
  double maxRange = 0.0;        // metres; pixels deeper become no measurement; 0: no limit
  std::filesystem::path cameraInfoFile;  // TUM RGB-D folders: the camera_calibration YAML (else FOLDER/camera_info.yaml)
};

// What the source reads, for reports (`voxen inspect`, a mapping run's summary).
struct DepthSourceInfo {
  std::string format;           // "ROS 1 bag", "MCAP", "TUM RGB-D folder"
  std::string topic;            // the depth topic (empty for TUM)
  std::string messageType;      // "sensor_msgs/Image", "sensor_msgs/msg/CompressedImage", ... ("" for TUM)
  std::string encoding;         // "16UC1", "32FC1", "16UC1; compressedDepth png", "16-bit PNG, 1/5000 m"
  std::string cameraInfo;       // where the camera came from: the camera_info topic or the YAML file
  std::string distortion;       // "none", "plumb_bob (k1 k2 p1 p2 k3 = ...), undistorted to P's pinhole"
  std::string poses;            // "tf (map -> odom -> camera_depth_optical_frame)", "groundtruth.txt (N poses)"
  CameraIntrinsics intrinsics;  // of the frames handed out
  uint64_t images = 0;          // depth images in the recording (frames handed out may be fewer)
  double poseStart = 0.0, poseEnd = 0.0;  // the span of times with a pose
};

struct DepthSourceStats {
  uint64_t frames = 0;               // handed out
  uint64_t skippedOutsidePoses = 0;  // stamp outside the tf data / ground truth
  uint64_t skippedBackwards = 0;     // stamped before the frame handed out before it
  uint64_t pixelsBeyondMaxRange = 0; // set to no measurement by maxRange
};

class DepthSource {
 public:
  // Opens `path` (a bag or an MCAP file, told by its content, or a TUM RGB-D folder: a folder
  // holding depth.txt), chooses the topics, reads the camera and the poses; the images are read
  // by next(). Throws Error / SettingError as above.
  explicit DepthSource(const std::filesystem::path& path, const DepthSourceOptions& options = {});
  ~DepthSource();
  DepthSource(DepthSource&&) noexcept;
  DepthSource& operator=(DepthSource&&) noexcept;

  const DepthSourceInfo& info() const;
  // The next frame (replacing `frame`'s contents); false after the last. Throws Error naming
  // the message or file of an image that does not decode.
  bool next(DepthFrame& frame);
  const DepthSourceStats& stats() const;

  class Impl;  // one per kind of input (src/depth/)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen

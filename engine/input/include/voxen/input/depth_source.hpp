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
// Colour (DepthSourceOptions::withColour, or a colourTopic named): each frame's DepthFrame::colour,
// an RGB image registered to the depth image (pixel (u, v) of both sees the same point, as a
// RealSense's aligned_depth_to_color or TUM's registered pairs are; its header.frame_id is not
// compared with the depth image's, as a registered image may name the colour camera's frame):
//   topic    bags/MCAP: colourTopic, or the recording's only colour image topic: an Image
//            topic of a colour encoding (rgb8, bgr8, rgba8, bgra8) or a CompressedImage that is
//            not compressedDepth; with several, the one in the depth topic's camera namespace
//            (".../color/image_raw" beside ".../depth/image_rect_raw"; a raw topic before its
//            own ".../compressed"), else a SettingError naming colourTopic and listing them.
//            mono8 topics (usually infrared) are read when named, never chosen by themselves.
//   pixels   sensor_msgs/Image rgb8, bgr8, rgba8, bgra8 (alpha dropped) and mono8 (grey
//            repeated in r, g, b); other encodings are refused by name, listing these.
//            sensor_msgs/CompressedImage in PNG form (image_transport's "bgr8; png compressed
//            bgr8", or "png"; any 8-bit PNG, 16-bit ones scaled to 8). JPEG is refused with an
//            Error naming the topic and format: Voxen's dependencies hold no JPEG decoder
//            (record raw images, or the png format of image_transport's compressed plugin).
//   size     the colour image must be the depth image's size (before undistortion): a
//            different size is an Error naming both topics and sizes; nothing is resized.
//            A distorted depth camera's undistortion map is applied to the colour image too
//            (it is registered to the raw depth pixels).
//   time     each depth frame takes the colour image whose header.stamp is nearest its own,
//            within colourMaxTimeDifference (default 0.02 s, as TUM's associate.py); ties go to
//            the earlier. Colour messages are read once, in recording order, as the depth
//            frames advance; one image may serve two depth frames. A frame with no colour
//            image within the tolerance is handed out without colour (DepthFrame::colour
//            empty) and counted in DepthSourceStats::framesWithoutColour.
//   TUM      rgb.txt's images (rgb/*.png, 8-bit RGB), associated in the same way.
// Without withColour (the default) no colour topic or file is looked at: frames have no colour.
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
  bool withColour = false;      // frames get DepthFrame::colour (above); a named colourTopic implies it
  std::string colourTopic;      // bags/MCAP: empty: the recording's one colour image topic; TUM: must be empty
  double colourMaxTimeDifference = 0.02;  // seconds between a depth and its colour image's stamps; >= 0
  bool colour() const { return withColour || !colourTopic.empty(); }
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
  // Colour, when asked for (empty otherwise):
  std::string colourTopic;      // the colour topic, or "rgb.txt" for TUM
  std::string colourType;       // "sensor_msgs/Image", ... ("" for TUM)
  std::string colourEncoding;   // "rgb8", "bgr8; png compressed bgr8", "8-bit PNG"
  uint64_t colourImages = 0;    // colour images in the recording
};

struct DepthSourceStats {
  uint64_t frames = 0;               // handed out
  uint64_t skippedOutsidePoses = 0;  // stamp outside the tf data / ground truth
  uint64_t skippedBackwards = 0;     // stamped before the frame handed out before it
  uint64_t pixelsBeyondMaxRange = 0; // set to no measurement by maxRange
  uint64_t framesWithColour = 0;     // handed out with a colour image (when colour is asked for)
  uint64_t framesWithoutColour = 0;  // handed out without: no colour image within colourMaxTimeDifference
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

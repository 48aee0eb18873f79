#pragma once
// Depth images as Voxen takes them (a depth camera's frames, for the TSDF): the image, the
// pinhole camera that took it, and where that camera was. Readers (ROS bags, MCAP, TUM RGB-D
// folders) and generators produce these; distortion is removed before (a reader undistorts
// plumb_bob images into this pinhole model), so every consumer sees an ideal pinhole.
//
// Conventions (ROS's sensor_msgs/CameraInfo and REP 103/105):
// - the camera frame is the optical frame: x right, y down, z forward (the viewing direction);
// - pixel (u, v) is column u, row v, row 0 at the top; its centre is at image coordinates
//   (u, v), so the point (x, y, z) in the camera frame projects to (fx x / z + cx, fy y / z + cy)
//   and lands in pixel (round(.), round(.));
// - depth is the z coordinate of the surface point (not the distance along the ray), in
//   metres; 0, NaN, infinities and anything beyond the caller's range are "no measurement".
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

namespace voxen {

// The pinhole camera of a depth image (ROS CameraInfo's K; no distortion left).
struct CameraIntrinsics {
  uint32_t width = 0, height = 0;  // pixels
  double fx = 0, fy = 0;           // focal lengths, pixels
  double cx = 0, cy = 0;           // principal point, pixels (image coordinates of the optical axis)
  bool operator==(const CameraIntrinsics&) const = default;
};

// How a depth image's pixels hold depth.
enum class DepthEncoding {
  Unsigned16,  // uint16 x DepthImage::depthScale metres (ROS 16UC1: millimetres, scale 0.001; TUM: 1/5000)
  Float32,     // float metres (ROS 32FC1)
};

struct DepthImage {
  uint32_t width = 0, height = 0;
  DepthEncoding encoding = DepthEncoding::Unsigned16;
  double depthScale = 0.001;     // metres per unit, Unsigned16 only
  std::vector<uint16_t> depth16;  // width * height, row-major, row 0 at the top (Unsigned16)
  std::vector<float> depth32;     // width * height (Float32)
  size_t pixels() const { return size_t(width) * height; }
};

// An RGB image registered to the depth image (same size, same pixels), for TSDF colour.
struct ColourImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3, row-major, row 0 at the top
};

// One frame: the depth image, its camera, the camera's pose (camera optical frame to the
// map's frame) and time, and optionally its colour.
struct DepthFrame {
  double time = 0.0;
  DepthImage depth;
  CameraIntrinsics intrinsics;
  glm::dvec3 position{0.0};
  glm::dquat orientation{1.0, 0.0, 0.0, 0.0};
  std::optional<ColourImage> colour;
};

}  // namespace voxen

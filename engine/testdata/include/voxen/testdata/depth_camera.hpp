#pragma once
// A synthetic depth camera for the TSDF's tests (issue 40): a pinhole camera carried along
// the synthetic scene's path (synthetic_lidar.hpp), looking a little down and sweeping its
// yaw from side to side so that walls and floor are seen from several sides, rendered by
// ray casting the scene's primitives in double precision. Frames follow voxen/map/depth_image.hpp's
// conventions (optical frame x right, y down, z forward; pixel centres at integer image
// coordinates; depth is z).
//
//   SyntheticScene scene = SyntheticScene::generate(1);
//   DepthCameraConfig camera;  // 640 x 480, 87 deg horizontal, 30 frames at 10 Hz
//   generateDepthFrames(scene, camera, [](const GeneratedDepthFrame& f) { use(f.frame); });
//   camera.colour = true;  // frames carry a registered RGB image too (f.frame.colour)
//
// The camera rides a base that follows the path (base_link: at floor height, heading along
// the path plus the sweep); the optical frame sits a fixed offset above it (cameraHeight up,
// pitched down by pitchDeg). Same scene and config: the same bytes on any thread count.
#include <cstdint>
#include <functional>
#include <vector>

#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

#include "voxen/map/depth_image.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

struct DepthCameraConfig {
  uint32_t width = 640, height = 480;
  double horizontalFovDeg = 87.0;  // a RealSense D435's depth camera; square pixels (fy = fx)
  int frames = 30;
  double rateHz = 10.0;            // frames per second
  double speed = 0.5;              // metres per second along the scene's path
  double startTime = 0.0;          // time of frame 0
  double startDistance = 0.0;      // arc length along the path at startTime
  double cameraHeight = 1.3;       // optical centre above the floor, metres
  double pitchDeg = 15.0;          // looking down by this much
  double sweepDeg = 35.0;          // yaw sweep amplitude either side of the path's heading
  double sweepPeriod = 6.0;        // seconds per full left-right-left sweep
  double minDepth = 0.2, maxDepth = 8.0;  // metres of z; outside: no measurement (0)
  double depthNoiseStdDev = 0.0;   // metres, Gaussian on z, before quantisation
  uint64_t seed = 1;               // the noise
  unsigned threads = 0;            // rows are split over this many (0: all hardware threads)
  // A colour image registered to each depth image (GeneratedDepthFrame::frame.colour): the
  // colour of each pixel's first hit (scene_colours.hpp), before noise; black where the ray
  // hits nothing within maxDepth, and where the surface is nearer than minDepth.
  bool colour = false;

  // Throws SettingError naming the field when a value is out of range.
  void validate() const;
  // fx = fy = (width / 2) / tan(hfov / 2); the principal point is the image centre,
  // ((width - 1) / 2, (height - 1) / 2), as pixel centres sit at integer coordinates.
  CameraIntrinsics intrinsics() const;
  // Time of frame i: startTime + i / rateHz.
  double frameTime(int frame) const { return startTime + double(frame) / rateHz; }
};

// The fixed link base_link -> camera optical frame (p_base = rotation * p_optical + translation).
TrajectorySample depthCameraMount(const DepthCameraConfig& config);
// base_link in the map at a time: on the path at floor height, heading plus the yaw sweep.
TrajectorySample depthCameraBasePose(const SyntheticScene& scene, const DepthCameraConfig& config, double time);
// The optical frame in the map at a time: the base pose composed with the mount.
TrajectorySample depthCameraPose(const SyntheticScene& scene, const DepthCameraConfig& config, double time);

struct GeneratedDepthFrame {
  int index = 0;
  // The image as a 16UC1 camera gives it (millimetres, scale 0.001; 0: no measurement),
  // with the intrinsics, the optical frame's pose and the time. The time is the frame's stamp
  // rounded to whole nanoseconds (as recordings store it), and the pose is computed at it.
  DepthFrame frame;
  int64_t stampNs = 0;
  TrajectorySample basePose;        // base_link at that time (tf's odom -> base_link)
  std::vector<double> trueDepth;    // exact z of the first hit per pixel, row-major; 0: none within range
  std::vector<double> measuredDepth;  // trueDepth plus noise (what the 16-bit image rounds); 0: none
  size_t validPixels = 0;           // pixels with a measurement
};

// Unit-z direction of pixel (u, v) in the optical frame: ((u - cx) / fx, (v - cy) / fy, 1).
glm::dvec3 pixelDirection(const CameraIntrinsics& camera, double u, double v);

// Renders the frames in order; the frame passed to onFrame is reused for the next one.
// Throws SettingError for a bad config and Error when the camera does not fit under the
// building's ceiling.
void generateDepthFrames(const SyntheticScene& scene, const DepthCameraConfig& config,
                         const std::function<void(const GeneratedDepthFrame&)>& onFrame);

}  // namespace voxen

#pragma once
// Depth frames of a small analytic scene for the TSDF tests: a floor (z = 0), a wall (x = 3)
// and a ball (centre (2, 0.5, 0.6), radius 0.4), seen by a pinhole camera at a pose; depths
// ray-cast in double, stored as 16-bit millimetres or float metres.
#include <cmath>
#include <limits>

#include <glm/gtc/quaternion.hpp>

#include "voxen/map/depth_image.hpp"

namespace voxen::test {

// The optical frame looking along world +x from `position`, turned by `yaw` about world z and
// `pitch` about the camera's x axis (radians).
inline glm::dquat lookingAlongX(double yaw, double pitch) {
  // Columns: optical x (right) = -y, optical y (down) = -z, optical z (forward) = +x.
  const glm::dmat3 base(glm::dvec3(0, -1, 0), glm::dvec3(0, 0, -1), glm::dvec3(1, 0, 0));
  return glm::angleAxis(yaw, glm::dvec3(0, 0, 1)) * glm::quat_cast(base) * glm::angleAxis(pitch, glm::dvec3(1, 0, 0));
}

// Distance t along `dir` from `origin` to the scene, or +inf.
inline double castScene(const glm::dvec3& origin, const glm::dvec3& dir) {
  double best = std::numeric_limits<double>::infinity();
  if (dir.z < 0) best = std::min(best, -origin.z / dir.z);
  if (dir.x > 0) best = std::min(best, (3.0 - origin.x) / dir.x);
  const glm::dvec3 oc = origin - glm::dvec3(2.0, 0.5, 0.6);
  const double a = glm::dot(dir, dir), b = glm::dot(oc, dir), c = glm::dot(oc, oc) - 0.16, disc = b * b - a * c;
  if (disc >= 0) {
    const double t = (-b - std::sqrt(disc)) / a;
    if (t > 0) best = std::min(best, t);
  }
  return best;
}

inline DepthFrame sceneFrame(uint32_t width, uint32_t height, double fx, const glm::dvec3& position, const glm::dquat& orientation,
                             DepthEncoding encoding) {
  DepthFrame frame;
  frame.intrinsics = {width, height, fx, fx, (width - 1) / 2.0, (height - 1) / 2.0 + 0.3};
  frame.position = position;
  frame.orientation = orientation;
  frame.depth.width = width;
  frame.depth.height = height;
  frame.depth.encoding = encoding;
  const glm::dmat3 r = glm::mat3_cast(orientation);
  for (uint32_t v = 0; v < height; ++v)
    for (uint32_t u = 0; u < width; ++u) {
      // Camera-frame direction with z = 1: t along it is the depth.
      const glm::dvec3 dir = r * glm::dvec3((u - frame.intrinsics.cx) / fx, (v - frame.intrinsics.cy) / fx, 1.0);
      const double depth = castScene(position, dir);
      if (encoding == DepthEncoding::Unsigned16)
        frame.depth.depth16.push_back(std::isfinite(depth) && depth < 60.0 ? uint16_t(std::lround(depth * 1000.0)) : 0);
      else
        frame.depth.depth32.push_back(std::isfinite(depth) ? float(depth) : std::numeric_limits<float>::quiet_NaN());
    }
  return frame;
}

}  // namespace voxen::test

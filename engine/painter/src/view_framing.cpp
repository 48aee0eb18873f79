#include "voxen/painter/view_framing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace voxen {

namespace {

// A point in the camera's axes about a reference point: sideways, up, and along the view.
struct ViewPoint {
  float right, up, depth;
};

// The extent [lo, hi] of the sideways shifts s that keep every point's |coordinate - s|
// within slope * (distance + depth): empty (lo > hi) when none does at this distance.
struct ShiftRange {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  bool empty() const { return lo > hi; }
};

}  // namespace

Camera framePoints(std::span<const glm::vec3> points, const glm::vec3& depthLo, const glm::vec3& depthHi,
                   const glm::vec3& direction, float fovYDegrees, float aspect, float fill) {
  Camera camera;
  camera.fovYDegrees = fovYDegrees;
  const glm::vec3 forward = glm::normalize(direction);
  // The axes lookAt gives a camera with z up looking along `forward`.
  const glm::vec3 right = glm::normalize(glm::cross(forward, camera.up));
  const glm::vec3 up = glm::cross(right, forward);
  const glm::vec3 centre = 0.5f * (depthLo + depthHi);
  const glm::vec3 corners[2] = {depthLo, depthHi};
  std::vector<ViewPoint> view;
  auto add = [&](const glm::vec3& p) {
    const glm::vec3 d = p - centre;
    view.push_back({glm::dot(d, right), glm::dot(d, up), glm::dot(d, forward)});
  };
  // Many points say little more than a few hundred thousand of them spread over the map.
  const size_t stride = std::max<size_t>(1, points.size() / 262144);
  for (size_t i = 0; i < points.size(); i += stride) add(points[i]);
  if (view.empty())
    for (int k = 0; k < 8; ++k) add({corners[k & 1].x, corners[(k >> 1) & 1].y, corners[(k >> 2) & 1].z});

  const float slopeY = std::tan(glm::radians(fovYDegrees) * 0.5f) * fill;
  const float slopeX = std::tan(glm::radians(fovYDegrees) * 0.5f) * aspect * fill;
  float nearest = std::numeric_limits<float>::infinity();
  for (const ViewPoint& v : view) nearest = std::min(nearest, v.depth);
  auto shifts = [&](float distance, ShiftRange& x, ShiftRange& y) {
    x = {}, y = {};
    for (const ViewPoint& v : view) {
      const float depth = distance + v.depth;
      x.lo = std::max(x.lo, v.right - slopeX * depth), x.hi = std::min(x.hi, v.right + slopeX * depth);
      y.lo = std::max(y.lo, v.up - slopeY * depth), y.hi = std::min(y.hi, v.up + slopeY * depth);
    }
    return !x.empty() && !y.empty();
  };
  // The smallest distance (eye to the reference point's depth) at which some sideways shift
  // fits every point: feasible distances form a half-line, so bisect it.
  const float radius = std::max(0.5f * glm::length(depthHi - depthLo), 1e-3f);
  float lo = -nearest + 1e-3f * radius, hi = std::max(lo, 0.0f) + radius;
  ShiftRange x, y;
  for (int i = 0; i < 64 && !shifts(hi, x, y); ++i) hi *= 2.0f;
  for (int i = 0; i < 40; ++i) {
    const float mid = 0.5f * (lo + hi);
    (shifts(mid, x, y) ? hi : lo) = mid;
  }
  shifts(hi, x, y);
  const float distance = hi;
  camera.target = centre + right * (0.5f * (x.lo + x.hi)) + up * (0.5f * (y.lo + y.hi));
  camera.eye = camera.target - forward * distance;
  // Depth range: everything in the bounds, not only the framed points.
  float farthest = -std::numeric_limits<float>::infinity(), closest = std::numeric_limits<float>::infinity();
  for (int k = 0; k < 8; ++k) {
    const glm::vec3 corner{corners[k & 1].x, corners[(k >> 1) & 1].y, corners[(k >> 2) & 1].z};
    const float depth = glm::dot(corner - camera.eye, forward);
    farthest = std::max(farthest, depth), closest = std::min(closest, depth);
  }
  camera.nearPlane = std::max(std::min(closest, distance + nearest) * 0.5f, distance * 1e-3f);
  camera.farPlane = std::max(farthest, distance) * 1.05f + 1e-3f;
  return camera;
}

Camera frameTopDown(const glm::vec3& lo, const glm::vec3& hi, float aspect, float fill) {
  Camera camera;
  camera.orthographic = true;
  const glm::vec3 size = glm::max(hi - lo, glm::vec3(1e-3f));
  camera.target = 0.5f * (lo + hi);
  // Straight down: Camera::viewUp makes +y the picture's up, so x runs to the right.
  camera.eye = {camera.target.x, camera.target.y, hi.z + 1.0f};
  camera.target.z = lo.z;
  camera.nearPlane = 0.5f;
  camera.farPlane = size.z + 1.5f;
  camera.orthoHeight = std::max(size.y, size.x / aspect) / fill;
  return camera;
}

Camera frameEyeTarget(const glm::vec3& eye, const glm::vec3& target, const glm::vec3& lo, const glm::vec3& hi, float fovYDegrees) {
  Camera camera;
  camera.fovYDegrees = fovYDegrees;
  camera.eye = eye;
  camera.target = target;
  const float distance = glm::length(eye - target);
  camera.nearPlane = std::max(0.01f, distance * 0.002f);
  camera.farPlane = 2.0f * (glm::length(hi - lo) + distance) + 1.0f;
  return camera;
}

}  // namespace voxen

#pragma once
// The C++ twin of shaders/query/collision_geometry.glsl: the collision queries' per-voxel
// geometry, operation for operation in the same order (each float operation rounds on its
// own: no -ffast-math, and x86-64's baseline has no fused multiply-add to contract into),
// so the CPU twins and the GPU passes decide every voxel alike, bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "voxen/gpu/query/collision_shared.h"

namespace voxen::collision {

struct V3 {
  float x, y, z;
};

inline float dot3(const V3& a, const V3& b) { return (a.x * b.x + a.y * b.y) + a.z * b.z; }
inline float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

inline float pointBoxDistance2(const V3& f, const V3& lo) {
  const V3 hi{lo.x + 1.0f, lo.y + 1.0f, lo.z + 1.0f};
  const V3 e{f.x - clampf(f.x, lo.x, hi.x), f.y - clampf(f.y, lo.y, hi.y), f.z - clampf(f.z, lo.z, hi.z)};
  return dot3(e, e);
}

inline V3 along(const V3& a, const V3& d, float t) { return {a.x + t * d.x, a.y + t * d.y, a.z + t * d.z}; }

inline float segmentBoxDistance2(const V3& a, const V3& d, float t, const V3& lo) {
  return pointBoxDistance2(along(a, d, t), lo);
}

inline float segmentBoxSlope(const V3& a, const V3& d, float t, const V3& lo) {
  const V3 p = along(a, d, t);
  const V3 hi{lo.x + 1.0f, lo.y + 1.0f, lo.z + 1.0f};
  const V3 e{p.x - clampf(p.x, lo.x, hi.x), p.y - clampf(p.y, lo.y, hi.y), p.z - clampf(p.z, lo.z, hi.z)};
  return dot3(d, e);
}

// The t in [0, 1] at which the sphere of squared radius r2 swept along a + t d comes closest
// to the box [lo, lo + 1], when it touches the box there; -1 where it does not touch it.
inline float segmentClosestTouch(const V3& a, const V3& d, float inverseLength2, float r2, float reject2, const V3& lo) {
  const V3 c{lo.x + 0.5f, lo.y + 0.5f, lo.z + 0.5f};
  const V3 w{c.x - a.x, c.y - a.y, c.z - a.z};
  const float projection = dot3(w, d) * inverseLength2;
  const float tc = clampf(projection, 0.0f, 1.0f);
  const V3 pc = along(a, d, tc);
  const V3 e{pc.x - c.x, pc.y - c.y, pc.z - c.z};
  if (dot3(e, e) > reject2) return -1.0f;
  if (segmentBoxDistance2(a, d, tc, lo) <= r2) return tc;
  // The closest t: where the convex distance stops falling.
  float l = 0.0f, h = 1.0f;
  for (int i = 0; i < gpu::kCollisionBisections; ++i) {
    const float m = (l + h) * 0.5f;
    if (segmentBoxSlope(a, d, m, lo) < 0.0f)
      l = m;
    else
      h = m;
  }
  return segmentBoxDistance2(a, d, h, lo) <= r2 ? h : -1.0f;
}

// The smallest t in [0, 1] at which the sphere of squared radius r2 swept along a + t d
// touches the box [lo, lo + 1]; -1 where it does not (collision_types.hpp).
inline float segmentTouchStart(const V3& a, const V3& d, float inverseLength2, float r2, float reject2, const V3& lo) {
  const float touching = segmentClosestTouch(a, d, inverseLength2, r2, reject2, lo);
  if (touching < 0.0f) return -1.0f;
  if (segmentBoxDistance2(a, d, 0.0f, lo) <= r2) return 0.0f;
  float l = 0.0f, h = touching;
  for (int i = 0; i < gpu::kCollisionBisections; ++i) {
    const float m = (l + h) * 0.5f;
    if (segmentBoxDistance2(a, d, m, lo) <= r2)
      h = m;
    else
      l = m;
  }
  return h;
}

// Whether segmentTouchStart would answer t >= 0, without the touch start's bisection.
inline bool segmentTouches(const V3& a, const V3& d, float inverseLength2, float r2, float reject2, const V3& lo) {
  return segmentClosestTouch(a, d, inverseLength2, r2, reject2, lo) >= 0.0f;
}

inline bool orientedBoxTouches(const gpu::CollisionProbe& p, const V3& o) {
  const V3 centre{o.x + 0.5f, o.y + 0.5f, o.z + 0.5f};
  const V3 d{centre.x - p.local.x, centre.y - p.local.y, centre.z - p.local.z};
  const float c = p.local.w, s = p.bounds.x;
  if (std::abs(d.x) > p.bounds.y || std::abs(d.y) > p.bounds.z || std::abs(d.z) > p.axes.z) return false;
  const float u = c * d.x + s * d.y;
  const float v = c * d.y - s * d.x;
  return std::abs(u) <= p.axes.x && std::abs(v) <= p.axes.y;
}

}  // namespace voxen::collision

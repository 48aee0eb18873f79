// The collision queries' per-voxel geometry and voxel classes as GLSL; the C++ twin is
// engine/query/internal/voxen/query/collision_geometry.hpp, operation for operation (every
// float operation `precise`: rounded on its own, in the order written, never fused).
#ifndef VOXEN_QUERY_COLLISION_GEOMETRY_GLSL
#define VOXEN_QUERY_COLLISION_GEOMETRY_GLSL

#include "query_map.glsl"
#include "collision_shared.h"

// What a voxel is to a collision pass: in a region resident in another chunk (left to that
// chunk), free, occupied or unobserved (its region absent from the map included).
const uint kVoxelElsewhere = 0u;
const uint kVoxelFree = 1u;
const uint kVoxelOccupied = 2u;
const uint kVoxelUnobserved = 3u;

uint collisionVoxel(ivec3 voxel, float threshold, out bool inMap) {
  ivec3 region = regionOfVoxel(voxel, gMap.regionSize);
  int slot;
  int state = regionState(region, slot);
  inMap = state != kRegionAbsent;
  if (state == kRegionElsewhere) return kVoxelElsewhere;
  if (state == kRegionAbsent) return kVoxelUnobserved;
  uint bits = gPool.v[voxelWord(voxel, region, slot)];
  if (bits == 0x7f800000u) return kVoxelUnobserved;
  return uintBitsToFloat(bits) >= threshold ? kVoxelOccupied : kVoxelFree;
}

float dot3(vec3 a, vec3 b) {
  precise float r = (a.x * b.x + a.y * b.y) + a.z * b.z;
  return r;
}

// Squared distance from point f to the box [lo, lo + 1].
float pointBoxDistance2(vec3 f, vec3 lo) {
  precise vec3 hi = lo + 1.0;
  precise vec3 e = f - clamp(f, lo, hi);
  return dot3(e, e);
}

// Squared distance from a + t d to the box [lo, lo + 1], and its derivative's sign carrier
// d . (p - closest point).
float segmentBoxDistance2(vec3 a, vec3 d, float t, vec3 lo) {
  precise vec3 p = a + t * d;
  return pointBoxDistance2(p, lo);
}
float segmentBoxSlope(vec3 a, vec3 d, float t, vec3 lo) {
  precise vec3 p = a + t * d;
  precise vec3 hi = lo + 1.0;
  precise vec3 e = p - clamp(p, lo, hi);
  return dot3(d, e);
}

// The t in [0, 1] at which the sphere of squared radius r2 swept along a + t d comes closest
// to the box [lo, lo + 1], when it touches the box there; -1 where it does not touch it.
float segmentClosestTouch(vec3 a, vec3 d, float inverseLength2, float r2, float reject2, vec3 lo) {
  precise vec3 c = lo + 0.5;
  precise vec3 w = c - a;
  precise float projection = dot3(w, d) * inverseLength2;
  float tc = clamp(projection, 0.0, 1.0);
  precise vec3 pc = a + tc * d;
  precise vec3 e = pc - c;
  if (dot3(e, e) > reject2) return -1.0;
  if (segmentBoxDistance2(a, d, tc, lo) <= r2) return tc;
  // The closest t: where the convex distance stops falling.
  float l = 0.0, h = 1.0;
  for (int i = 0; i < kCollisionBisections; ++i) {
    precise float m = (l + h) * 0.5;
    if (segmentBoxSlope(a, d, m, lo) < 0.0) l = m; else h = m;
  }
  return segmentBoxDistance2(a, d, h, lo) <= r2 ? h : -1.0;
}

// The smallest t in [0, 1] at which the sphere of squared radius r2 swept along a + t d
// touches the box [lo, lo + 1]; -1 where it does not touch it.
float segmentTouchStart(vec3 a, vec3 d, float inverseLength2, float r2, float reject2, vec3 lo) {
  float touching = segmentClosestTouch(a, d, inverseLength2, r2, reject2, lo);
  if (touching < 0.0) return -1.0;
  if (segmentBoxDistance2(a, d, 0.0, lo) <= r2) return 0.0;
  float l = 0.0, h = touching;
  for (int i = 0; i < kCollisionBisections; ++i) {
    precise float m = (l + h) * 0.5;
    if (segmentBoxDistance2(a, d, m, lo) <= r2) h = m; else l = m;
  }
  return h;
}

// Whether segmentTouchStart would answer t >= 0, without the touch start's bisection.
bool segmentTouches(vec3 a, vec3 d, float inverseLength2, float r2, float reject2, vec3 lo) {
  return segmentClosestTouch(a, d, inverseLength2, r2, reject2, lo) >= 0.0;
}

// Whether the yawed box of probe p touches the voxel at offset o from its anchor.
bool orientedBoxTouches(CollisionProbe p, vec3 o) {
  precise vec3 centre = o + 0.5;
  precise vec3 d = centre - p.local.xyz;
  float c = p.local.w, s = p.bounds.x;
  if (abs(d.x) > p.bounds.y || abs(d.y) > p.bounds.z || abs(d.z) > p.axes.z) return false;
  precise float u = c * d.x + s * d.y;
  precise float v = c * d.y - s * d.x;
  return abs(u) <= p.axes.x && abs(v) <= p.axes.y;
}

#endif

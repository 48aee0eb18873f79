// The t at which a ray crosses a voxel face: one expression for the voxel walk
// (ray_walk.glsl) and region discovery (region_discover.comp), operation for operation the
// same as crossingT and crossingReciprocal in engine/occupancy/internal/voxen/occupancy/ray_walk.hpp,
// so that the GPU and the CPU reference order the same crossings the same way.
//
// The only division is 1/d, once per ray and axis (exactDiv: exactly rounded, in double
// where the device has doubles). Each crossing is then a subtraction and a multiplication,
// which Vulkan rounds correctly on every device (`precise` stops contraction), so the walk's
// inner loop needs neither a division nor a double: consumer GPUs run doubles at 1/32-1/64
// of the float rate. Along one axis p - o grows with the face index and 1/d has one sign, so
// the crossings stay monotone in the face index, which the walk's merge, its segments and
// the region walk rely on.
#ifndef VOXEN_OCCUPANCY_CROSSING_TIME_GLSL
#define VOXEN_OCCUPANCY_CROSSING_TIME_GLSL

#include "../common/exact_math.glsl"

// 1/d exactly rounded, 0 where d is 0 (such an axis has no faces to cross; a zero length
// that rounds to 0 in float then crosses at t = 0 on both sides, not at NaN).
float crossingReciprocal(float d) {
  precise float r = d != 0.0 ? exactDiv(1.0, d) : 0.0;
  return r;
}

vec3 crossingReciprocal(vec3 d) { return vec3(crossingReciprocal(d.x), crossingReciprocal(d.y), crossingReciprocal(d.z)); }

// t of face j along one axis (origin o in [0,1), invD = crossingReciprocal(d), step -1 or
// +1): face j lies at p = j + 1 stepping up, at p = -j stepping down.
float crossingAt(float o, float invD, int step, int j) {
  precise float p = step > 0 ? float(j + 1) : float(-j);
  precise float t = (p - o) * invD;
  return t;
}

#endif

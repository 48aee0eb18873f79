// The clearance sample formula as GLSL; engine/query/src/clearance_sample.cpp is its C++
// twin, operation for operation (both build on queryLerp, query_shared.h).
#ifndef VOXEN_QUERY_CLEARANCE_SAMPLE_GLSL
#define VOXEN_QUERY_CLEARANCE_SAMPLE_GLSL

#include "query_shared.h"

// (clearance, gradient in metres per metre) from corners c (x fastest, then y, z), and the
// sample's status: outside the map when a corner's region is absent (the host's
// kQueryOutsideMapClearance left by the gather), out of range when a corner has no obstacle
// within range; then the sample is -1 with a NaN gradient (undefined).
vec4 clearanceSample(float c[8], vec3 f, float inverseResolution, out uint status) {
  bool outside = false, missing = false;
  for (int k = 0; k < 8; ++k) {
    outside = outside || c[k] == kQueryOutsideMapClearance;
    missing = missing || c[k] < 0.0;
  }
  status = outside ? kQueryStatusOutsideMap : missing ? kQueryStatusOutOfRange : kQueryStatusObserved;
  float undefined = uintBitsToFloat(0x7fc00000u);
  if (missing) return vec4(-1.0, undefined, undefined, undefined);
  float x00 = queryLerp(c[0], c[1], f.x), x10 = queryLerp(c[2], c[3], f.x);
  float x01 = queryLerp(c[4], c[5], f.x), x11 = queryLerp(c[6], c[7], f.x);
  float y0 = queryLerp(x00, x10, f.y), y1 = queryLerp(x01, x11, f.y);
  float value = queryLerp(y0, y1, f.z);
  precise float dx00 = c[1] - c[0], dx10 = c[3] - c[2], dx01 = c[5] - c[4], dx11 = c[7] - c[6];
  float gx = queryLerp(queryLerp(dx00, dx10, f.y), queryLerp(dx01, dx11, f.y), f.z);
  precise float dy0a = c[2] - c[0], dy0b = c[3] - c[1], dy1a = c[6] - c[4], dy1b = c[7] - c[5];
  float gy = queryLerp(queryLerp(dy0a, dy0b, f.x), queryLerp(dy1a, dy1b, f.x), f.z);
  precise float dz = y1 - y0;
  precise float gxm = gx * inverseResolution, gym = gy * inverseResolution, gzm = dz * inverseResolution;
  return vec4(value, gxm, gym, gzm);
}

#endif

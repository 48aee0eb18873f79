#pragma once
// The clearance sample formula, the C++ twin of shaders/query/clearance_sample.glsl:
// operation for operation the same float arithmetic, so the CPU reference equals the GPU bit
// for bit. Edit both together.
#include "voxen/gpu/query/query_shared.h"
#include "voxen/query/query_types.hpp"

namespace voxen {

inline ClearanceSample clearanceSample(const float c[8], const glm::vec3& f, float inverseResolution) {
  using gpu::queryLerp;
  bool outside = false, missing = false;
  for (int k = 0; k < 8; ++k) {
    outside = outside || c[k] == gpu::kQueryOutsideMapClearance;
    missing = missing || c[k] < 0.0f;
  }
  if (missing) return {-1.0f, glm::vec3(std::bit_cast<float>(0x7fc00000u)),
                       outside ? QueryStatus::OutsideMap : QueryStatus::OutOfRange};
  const float x00 = queryLerp(c[0], c[1], f.x), x10 = queryLerp(c[2], c[3], f.x);
  const float x01 = queryLerp(c[4], c[5], f.x), x11 = queryLerp(c[6], c[7], f.x);
  const float y0 = queryLerp(x00, x10, f.y), y1 = queryLerp(x01, x11, f.y);
  ClearanceSample s;
  s.clearance = queryLerp(y0, y1, f.z);
  const float dx00 = c[1] - c[0], dx10 = c[3] - c[2], dx01 = c[5] - c[4], dx11 = c[7] - c[6];
  const float gx = queryLerp(queryLerp(dx00, dx10, f.y), queryLerp(dx01, dx11, f.y), f.z);
  const float dy0a = c[2] - c[0], dy0b = c[3] - c[1], dy1a = c[6] - c[4], dy1b = c[7] - c[5];
  const float gy = queryLerp(queryLerp(dy0a, dy0b, f.x), queryLerp(dy1a, dy1b, f.x), f.z);
  const float dz = y1 - y0;
  s.gradient = {gx * inverseResolution, gy * inverseResolution, dz * inverseResolution};
  s.status = QueryStatus::Observed;
  return s;
}

}  // namespace voxen

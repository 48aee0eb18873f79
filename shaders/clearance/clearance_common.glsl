// What the clearance passes share: the push constants, the block layout, and the
// one-dimensional lower envelope of the exact transform (the same steps, in the same order,
// as engine/clearance/internal/voxen/clearance/distance_envelope.hpp).
#ifndef VOXEN_CLEARANCE_COMMON_GLSL
#define VOXEN_CLEARANCE_COMMON_GLSL

#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../map/layer_table.h"
#include "../map/region_table.glsl"
#include "clearance_shared.h"

layout(push_constant) uniform Push { ClearancePush p; } pc;

ivec3 blockSize() {
  int n = pc.p.regionSize;
  return ivec3(n + 2 * pc.p.padX, n + 2 * pc.p.padY, n + 2 * pc.p.padZ);
}

uint fieldIndex(uint block, ivec3 c, ivec3 size) {
  return uint(c.x) + uint(size.x) * (uint(c.y) + uint(size.y) * (uint(c.z) + uint(size.z) * block));
}

// One line's values: gLine in, gOut out (length n, weight w).
float gLine[kMaxBlockEdge];
float gOut[kMaxBlockEdge];
int gRoot[kMaxBlockEdge];
float gBoundary[kMaxBlockEdge];

void distanceEnvelope(int n, float w) {
  int k = -1;
  for (int q = 0; q < n; ++q) {
    if (gLine[q] >= kFarSquared) continue;
    precise float fq = gLine[q] + w * float(q) * float(q);
    float boundary = -kFarSquared;
    while (k >= 0) {
      int r = gRoot[k];
      precise float fr = gLine[r] + w * float(r) * float(r);
      precise float b = (fq - fr) / (2.0 * w * float(q - r));
      boundary = b;
      if (boundary > gBoundary[k]) break;
      --k;
    }
    if (k < 0) boundary = -kFarSquared;
    ++k;
    gRoot[k] = q;
    gBoundary[k] = boundary;
  }
  if (k < 0) {
    for (int q = 0; q < n; ++q) gOut[q] = kFarSquared;
    return;
  }
  int j = 0;
  for (int q = 0; q < n; ++q) {
    while (j < k && gBoundary[j + 1] < float(q)) ++j;
    int r = gRoot[j];
    precise float d = w * float(q - r) * float(q - r) + gLine[r];
    gOut[q] = d;
  }
}

float axisWeight(uint axis) { return axis == 0u ? pc.p.weightX : axis == 1u ? pc.p.weightY : pc.p.weightZ; }

#endif

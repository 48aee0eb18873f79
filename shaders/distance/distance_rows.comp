#version 460
// The distance transform's row pass (distance_shared.h): one thread per row. A forward sweep
// keeps the last obstacle seen, a backward sweep the next one; each cell gets the smaller
// distance along its row, or kDistanceNone when the row has no obstacle. 2 x width
// iterations per thread (width <= kMaxDistanceLine).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "distance_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { DistanceRowPush pc; };

void main() {
  uint y = voxenThreadIndex();
  uint width = pc.width;
  if (y >= pc.height) return;
  UintArray obstacles = UintArray(pc.obstacles);
  UintArray rowDistance = UintArray(pc.rowDistance);
  uint first = y * width;
  // Forward: the distance to the nearest obstacle at or left of x.
  uint last = kDistanceNone;
  for (uint x = 0u; x < width; ++x) {
    uint i = first + x;
    if (((obstacles.v[i >> 2u] >> ((i & 3u) * 8u)) & 0xFFu) != 0u) last = x;
    rowDistance.v[i] = last == kDistanceNone ? kDistanceNone : x - last;
  }
  if (last == kDistanceNone) return;  // no obstacle on this row: every cell is kDistanceNone
  // Backward: the obstacle at or right of x, where it is nearer (the forward sweep wrote 0 on
  // obstacles).
  uint next = kDistanceNone;
  for (uint x = width; x-- > 0u;) {
    uint i = first + x;
    uint d = rowDistance.v[i];
    if (d == 0u) next = x;
    else if (next != kDistanceNone && next - x < d) rowDistance.v[i] = next - x;
  }
}

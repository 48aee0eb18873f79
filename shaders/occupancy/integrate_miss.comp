#version 460
// Miss pass: one invocation per ray segment walks its voxels (reverse by default) and
// applies the miss log-odds to each, except the sample voxel of a ray that ends in a hit.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

float gStopAt;
float gLength;

bool visitVoxel(ivec3 v, float tEnter, float tExit) {
  if (!(tEnter < gStopAt)) return (pc.flags & kPassReverse) != 0u;  // reverse walks reach earlier voxels later
  bool isSample = v == gRay.end;
  if (isSample && (gRay.flags & (kSampleHit | kSkipSample)) != 0u) return true;
  if (!isSample && v == gRay.start && (gRay.flags & kSkipOrigin) != 0u) return true;
  uint index;
  if (!voxelIndex(v, index)) return true;
  applyDelta(index, pc.missValue);
  applyLayers(index, false, tEnter, tExit);
  return true;
}

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.itemCount) return;
  uvec2 segment = pc.segments.v[i];
  gRay = pc.rays.v[segment.x];
  gStopAt = (pc.flags & kPassStopOnOccupied) != 0u ? uintBitsToFloat(pc.stop.v[segment.x]) : kInf;
  walkSegment(segment.y, gRay.segments, (pc.flags & kPassReverse) != 0u);
  flushCounters();
}

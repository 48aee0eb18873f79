#version 460
// For kRayStopOnFirstOccupied: one invocation per segment finds the first voxel (forward)
// that is occupied before this batch and lowers its ray's stop point to that voxel's entry
// t. Runs before the miss pass, so it sees the map as it was when the batch began.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

float gThreshold;

bool visitVoxel(ivec3 v, float tEnter, float tExit) {
  uint index;
  if (!voxelIndex(v, index)) return true;
  float value = uintBitsToFloat(gOccupancy.v[index]);
  if (!isinf(value) && value >= gThreshold) {
    // t >= 0, so the float's bits order like the float: atomicMin keeps the earliest.
    atomicMin(UintArray(pc.p.stop).v[gRayIndex], floatBitsToUint(tEnter));
    return false;
  }
  return true;
}

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.itemCount) return;
  loadPushConstants();
  gThreshold = pc.p.threshold;
  uvec2 segment = loadSegment(i);
  gRayIndex = segment.x;
  loadRayForWalk(segment.x);
  walkSegment(segment.y, gRay.segments, false);
  flushCounters();
}

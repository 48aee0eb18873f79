#version 460
// Hit pass, after every miss of the batch: one invocation per ray applies the hit log-odds
// (and the voxel-mean sample) to its sample voxel, so a hit is never eroded by the misses
// of its own batch.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.itemCount) return;
  loadPushConstants();
  gRay = pc.rays.v[i];
  if ((gRay.flags & kSampleHit) == 0u) return;
  float tEnter = sampleEnterT();
  if ((pc.flags & kPassStopOnOccupied) != 0u && tEnter > uintBitsToFloat(pc.stop.v[i])) return;
  uint index;
  if (voxelIndexByTable(gRay.end, index)) {
    applyDelta(index, pc.hitValue);
    applyLayers(index, true, tEnter, 1.0);
  }
  flushCounters();
}

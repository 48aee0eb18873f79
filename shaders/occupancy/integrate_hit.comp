#version 460
// Hit pass of the two-phase order, after every miss of the batch: one invocation per ray
// applies the hit log-odds (and the voxel-mean sample) to its sample voxel, so a hit is
// never eroded by the misses of its own batch.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "hit_sample.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.itemCount) return;
  loadPushConstants();
  applyRayHit(i);
  flushCounters();
}

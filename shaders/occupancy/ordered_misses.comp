#version 460
// Sequential order, after the miss pass (dispatched indirectly, ordered_miss_args.comp:
// workgroup y is the stripe): one invocation per deferred miss counts it in the gap between
// its voxel's hits where its ray falls (countOrderedMiss), for hit_resolve.comp.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i >= min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity)) return;
  uvec2 miss = unpackUint2x32(gMissList.v[stripe * gStripeCapacity + i]);  // (first position of the run, ray)
  countOrderedMiss(miss.x, miss.y);
}

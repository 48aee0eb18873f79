#version 460
// Sequential order, after the miss pass: one invocation turns the deferred-miss list's
// stripe counts into the workgroup counts of the indirect dispatch of ordered_misses.comp:
// x covers the longest stripe, y the stripes.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"

layout(local_size_x = 1) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint longest = 0u;
  for (uint stripe = 0u; stripe < kDeferredStripes; ++stripe)
    longest = max(longest, min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity));
  gOrdered.v[gMissHeader + 0u] = (longest + 63u) / 64u;
  gOrdered.v[gMissHeader + 1u] = kDeferredStripes;
  gOrdered.v[gMissHeader + 2u] = 1u;
}

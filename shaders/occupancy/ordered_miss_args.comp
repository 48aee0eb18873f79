#version 460
// Sequential order, after the miss pass: one invocation turns the stripe counts of the
// deferred-miss list and of the run list into the workgroup counts of the indirect
// dispatches of ordered_misses.comp and hit_resolve.comp: x covers the longest stripe, y
// the stripes.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"

layout(local_size_x = 1) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint longestMisses = 0u, longestRuns = 0u;
  for (uint stripe = 0u; stripe < kDeferredStripes; ++stripe) {
    longestMisses = max(longestMisses, min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity));
    longestRuns = max(longestRuns, gOrdered.v[gRunHeader + deferredCountOffset(stripe)]);
  }
  gOrdered.v[gMissHeader + 0u] = (longestMisses + 63u) / 64u;
  gOrdered.v[gMissHeader + 1u] = kDeferredStripes;
  gOrdered.v[gMissHeader + 2u] = 1u;
  gOrdered.v[gRunHeader + 0u] = (longestRuns + 63u) / 64u;
  gOrdered.v[gRunHeader + 1u] = kDeferredStripes;
  gOrdered.v[gRunHeader + 2u] = 1u;
}

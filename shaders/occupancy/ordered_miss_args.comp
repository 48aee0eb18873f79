#version 460
// Sequential order, after the miss pass: one invocation turns the deferred-miss list's
// count into the workgroup counts of the indirect dispatch of ordered_misses.comp.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"

layout(local_size_x = 1) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint listed = min(gOrdered.v[gMissHeader], gMissCapacity);
  gOrdered.v[gMissHeader + 1u] = (listed + 63u) / 64u;
  gOrdered.v[gMissHeader + 2u] = 1u;
  gOrdered.v[gMissHeader + 3u] = 1u;
}

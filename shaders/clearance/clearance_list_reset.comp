#version 460
// Open-list flood fill, between iterations: empties the list the next iteration appends to
// (the one the previous iteration read): an indirect dispatch of 0 workgroups and a count of 0.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"

layout(local_size_x = 1) in;

void main() {
  UintArray lists = UintArray(pc.p.lists);
  uint next = 1u - pc.p.iteration % 2u;
  lists.v[next * 4u] = 0u;
  lists.v[next * 4u + 1u] = 1u;
  lists.v[next * 4u + 2u] = 1u;
  lists.v[next * 4u + 3u] = 0u;
}

#version 460
// Neighbour and ROI propagation, one iteration: one invocation per voxel of the key grid
// takes the nearest of its own obstacle and those its six face neighbours found, as seen
// from itself, within the range (reading `field`, writing `other`: ping-pong, so an
// iteration's result does not depend on the order of its invocations). A step that changes
// a key sets the `lists` word 3; clearance_step_args.comp sizes the next step from it, so
// once nothing changes (then both buffers hold the same keys) the remaining steps are
// dispatches of no workgroups.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "clearance_keys.glsl"
#include "clearance_grid.glsl"
#include "../common/dispatch.glsl"
#extension GL_KHR_shader_subgroup_vote : require

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  uint voxels = gridVoxels();
  bool live = i < voxels * pc.p.blocks;
  if (!live) i = 0u;  // inactive lanes recompute voxel 0 without writing, for the vote
  uint block = i / voxels;
  ivec3 g = blockCoord(i - block * voxels, gridSize());
  Uint64Array from = Uint64Array(pc.p.field);
  uint64_t best = from.v[i];
  const ivec3 steps[6] = ivec3[6](ivec3(-1, 0, 0), ivec3(1, 0, 0), ivec3(0, -1, 0), ivec3(0, 1, 0), ivec3(0, 0, -1), ivec3(0, 0, 1));
  for (int k = 0; k < 6; ++k) {
    ivec3 u = g + steps[k];
    if (!inGrid(u)) continue;
    best = min(best, keyFrom(from.v[gridIndex(block, u)], u, g));
  }
  if (live) Uint64Array(pc.p.other).v[i] = best;
  if (subgroupAny(live && best != from.v[i]) && subgroupElect()) atomicOr(UintArray(pc.p.lists).v[3], 1u);
}

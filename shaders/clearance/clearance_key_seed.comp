#version 460
// Propagation techniques, first pass: one invocation per voxel of a block's key grid sets
// its key: an obstacle is its own nearest obstacle (offset 0), any other voxel has none yet.
// The open list (push `lists` set) also lists every obstacle as the first iteration's work.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "clearance_keys.glsl"
#include "clearance_grid.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  uint voxels = gridVoxels();
  if (i >= voxels * pc.p.blocks) return;
  uint block = i / voxels;
  ivec3 g = blockCoord(i - block * voxels, gridSize());
  bool obstacle = blockObstacle(block, gridOrigin() + g);
  Uint64Array(pc.p.field).v[i] = obstacle ? keyOf(ivec3(0)) : kNoKey;
  if (obstacle && pc.p.lists != 0ul) {
    UintArray lists = UintArray(pc.p.lists);
    uint slot = atomicAdd(lists.v[3], 1u);
    lists.v[kOpenListHeaderWords + slot] = i;
    if (slot % 64u == 0u) atomicAdd(lists.v[0], 1u);
  }
}

#version 460
// Open-list flood fill, one iteration (push `iteration`): one invocation per listed voxel
// (list iteration % 2, dispatched indirectly over its count) offers its nearest obstacle to
// its six face neighbours; a neighbour that gets a nearer one (64-bit atomicMin) is listed
// once (a per-voxel stamp of the iteration in `other`) for the next iteration.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "clearance_keys.glsl"
#include "clearance_grid.glsl"

layout(local_size_x = 64) in;

void main() {
  UintArray lists = UintArray(pc.p.lists);
  uint current = pc.p.iteration % 2u, next = 1u - current;
  uint capacity = gridVoxels() * pc.p.blocks;
  uint i = gl_GlobalInvocationID.x;
  if (i >= lists.v[current * 4u + 3u]) return;
  uint index = lists.v[kOpenListHeaderWords + current * capacity + i];
  uint voxels = gridVoxels();
  uint block = index / voxels;
  ivec3 g = blockCoord(index - block * voxels, gridSize());
  Uint64Array keys = Uint64Array(pc.p.field);
  UintArray stamps = UintArray(pc.p.other);
  uint64_t key = keys.v[index];
  const ivec3 steps[6] = ivec3[6](ivec3(-1, 0, 0), ivec3(1, 0, 0), ivec3(0, -1, 0), ivec3(0, 1, 0), ivec3(0, 0, -1), ivec3(0, 0, 1));
  for (int k = 0; k < 6; ++k) {
    ivec3 u = g + steps[k];
    if (!inGrid(u)) continue;
    uint target = gridIndex(block, u);
    uint64_t offered = keyFrom(key, g, u);
    if (offered >= keys.v[target]) continue;
    if (offered >= atomicMin(keys.v[target], offered)) continue;
    if (atomicExchange(stamps.v[target], pc.p.iteration + 1u) == pc.p.iteration + 1u) continue;
    uint slot = atomicAdd(lists.v[next * 4u + 3u], 1u);
    lists.v[kOpenListHeaderWords + next * capacity + slot] = target;
    if (slot % 64u == 0u) atomicAdd(lists.v[next * 4u], 1u);
  }
}

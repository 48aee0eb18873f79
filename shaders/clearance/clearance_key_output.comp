#version 460
// Propagation techniques, last pass: one invocation per voxel of each target region writes
// its clearance from the key its grid voxel holds into the cache's clearance pool.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"
#include "clearance_keys.glsl"
#include "clearance_grid.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

void main() {
  uint i = voxenThreadIndex();
  int n = pc.p.regionSize;
  uint regionVoxels = uint(n * n * n);
  if (i >= regionVoxels * pc.p.blocks) return;
  uint block = i / regionVoxels;
  uint local = i - block * regionVoxels;
  ivec3 r = blockCoord(local, ivec3(n));
  uint64_t key = Uint64Array(pc.p.field).v[gridIndex(block, padding() + r - gridOrigin())];
  ivec4 target = targetOf(block);
  FloatArray clearance = FloatArray(Uint64Array(pc.p.layers).v[pc.p.clearanceLayer]);
  clearance.v[uint(target.w) * regionVoxels + local] = clearanceOfKey(key);
}

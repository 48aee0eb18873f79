#version 460
// TSDF ray accumulation: one thread per ray of the scan, walking its band as the discovery pass
// did; every voxel it measures whose block lies in this chunk adds w sdf and w to the voxel's
// accumulator with 64-bit integer atomics. Integer sums: the same totals in any order of the
// rays and threads (bounds: |w sdf| <= 16 x 2^22 per ray, so 2^37 rays on one voxel before the
// sum could overflow; the weight sum is 64 bits too).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "tsdf_ray_shared.h"
#include "tsdf_ray.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { TsdfRayAccumulatePush pc; };

void main() {
  uint index = voxenThreadIndex();
  if (index >= pc.scan.rayCount) return;
  TsdfRay ray = TsdfRayArray(pc.scan.rays).v[index];
  int64_t range = tsdfRayRange(ray);
  if (range == 0) return;
  TsdfRayWalk w = tsdfRayWalkOf(ray, range, pc.scan.truncation);
  uint64_t lastKey = uint64_t(0);
  uint position = 0xFFFFFFFFu;
  Uint64Array sums = Uint64Array(pc.sums);
  for (;;) {
    int64_t sdf = tsdfRaySdf(w.vx, w.vy, w.vz, ray, range);
    uint weight = tsdfRayWeightAt(sdf, pc.scan.truncation, pc.scan.weighting);
    if (weight > 0u) {
      uint64_t key = tsdfRayBlockKey(w.vx >> 3, w.vy >> 3, w.vz >> 3);
      if (key != lastKey) {
        uint listIndex = tsdfRayFindBlock(pc.table, pc.indices, pc.tableMask, key);
        position = listIndex == 0xFFFFFFFFu ? 0xFFFFFFFFu : UintArray(pc.order).v[listIndex];
        lastKey = key;
      }
      uint inChunk = position - pc.chunkFirst;  // wraps past chunkBlocks below the chunk
      if (position != 0xFFFFFFFFu && inChunk < pc.chunkBlocks) {
        uint local = uint(w.vx & 7) | (uint(w.vy & 7) << 3) | (uint(w.vz & 7) << 6);
        uint at = (inChunk * kTsdfBlockVoxels + local) * 2u;
        atomicAdd(sums.v[at], uint64_t(int64_t(weight) * sdf));
        atomicAdd(sums.v[at + 1u], uint64_t(weight));
      }
    }
    int axis = tsdfRayWalkAxis(w);
    if (axis < 0) break;
    w = tsdfRayWalkStep(w, axis);
  }
}

#version 460
// TSDF ray discovery: one thread per ray of the scan. The ray walks its band's voxels
// (tsdf_ray_shared.h, the CPU reference's walk), and the block of every voxel it measures goes
// into a hash set of packed block keys; a key new to the set is listed once and its list index
// stored beside it, for the accumulation pass's lookups. The host reads the list back, makes the
// blocks' regions resident and sorts the blocks.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "tsdf_ray_shared.h"
#include "tsdf_ray.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { TsdfRayDiscoverPush pc; };

void insertBlock(uint64_t key) {
  Uint64Array table = Uint64Array(pc.table);
  UintArray counters = UintArray(pc.counters);
  uint h = tsdfRayBlockHash(key);
  for (uint probe = 0u; probe < pc.maxProbe; ++probe) {
    uint slot = (h + probe) & pc.tableMask;
    uint64_t previous = atomicCompSwap(table.v[slot], uint64_t(0), key);
    if (previous == uint64_t(0)) {
      uint index = atomicAdd(counters.v[0], 1u);
      UintArray(pc.indices).v[slot] = index;
      if (index < pc.listCapacity) Uint64Array(pc.list).v[index] = key;
      return;
    }
    if (previous == key) return;
  }
  atomicOr(counters.v[1], 1u);  // no free slot within maxProbe: the host retries with a larger set
}

void main() {
  uint index = voxenThreadIndex();
  if (index >= pc.scan.rayCount) return;
  TsdfRay ray = TsdfRayArray(pc.scan.rays).v[index];
  int64_t range = tsdfRayRange(ray);
  if (range == 0) return;
  TsdfRayWalk w = tsdfRayWalkOf(ray, range, pc.scan.truncation);
  uint64_t last = uint64_t(0);
  for (;;) {
    int64_t sdf = tsdfRaySdf(w.vx, w.vy, w.vz, ray, range);
    if (tsdfRayWeightAt(sdf, pc.scan.truncation, pc.scan.weighting) > 0u) {
      uint64_t key = tsdfRayBlockKey(w.vx >> 3, w.vy >> 3, w.vz >> 3);
      if (key != last) insertBlock(key);
      last = key;
    }
    int axis = tsdfRayWalkAxis(w);
    if (axis < 0) break;
    w = tsdfRayWalkStep(w, axis);
  }
}

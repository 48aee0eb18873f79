#version 460
// NDT free-space updates of a chunk whose list overflowed: one invocation per voxel of the
// region cache's pools applies the voxel's summed updates (ndt_miss_order.h: ndtMissSums,
// added by integrate_miss.comp's sums walk) with one addition and one clamp, and sets the sum
// back to 0 for the next overflow. Dispatched indirectly (ndt_miss_args.comp): no workgroups
// when the list did not overflow.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_access.glsl"
#include "ndt_miss_order.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;
// 1: clear every sum, 4 per invocation, before the integrator's first overflow (kNdtMissClearArgs:
// never otherwise, as writing 8 bytes per pool voxel costs lavapipe about a second at a 512 MiB
// cache); 0: the pass after the sums' walk.
layout(constant_id = 1) const uint kClear = 0u;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  if (kClear != 0u) {
    gNdt = NdtParamsRef(pc.p.ndt).v;
    gOrderCapacity = pc.p.orderCapacity;
    uint voxels = pc.p.slotCount * uint(pc.p.regionSize * pc.p.regionSize * pc.p.regionSize);
    Uint64Array cleared = ndtMissSumArray();
    uint first = voxenThreadIndex() * 4u;
    for (uint k = first; k < min(first + 4u, voxels); ++k) cleared.v[k] = 0ul;
    return;
  }
  loadPushConstants();
  uint index = voxenThreadIndex();
  uint regionVoxels = uint(gRegionSize * gRegionSize * gRegionSize);
  if (index >= pc.p.slotCount * regionVoxels) return;
  Uint64Array sums = ndtMissSumArray();
  int64_t sum = int64_t(sums.v[index]);
  if (sum == 0l) return;
  float occupancy = uintBitsToFloat(gOccupancy.v[index]);
  gOccupancy.v[index] = floatBitsToUint(ndtUpdatedValue(occupancy, ndtMissSumDelta(sum), gClampMin, gClampMax));
  sums.v[index] = 0ul;
}

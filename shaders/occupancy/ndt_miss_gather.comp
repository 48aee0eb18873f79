#version 460
// NDT free-space updates: the deferred-miss list's entries (pool index, ray), written by the
// miss pass in whatever order its invocations ran, gathered into two arrays for the sorts:
// the ray, and the voxel's batch key (as hit_keys.comp keys a hit). Dispatched indirectly
// over the list (ordered_miss_args.comp: workgroup y is the stripe).
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_miss_order.h"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i >= min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity)) return;
  uvec2 miss = unpackUint2x32(gMissList.v[stripe * gStripeCapacity + i]);  // (pool index, ray)
  uint n = uint(gRegionSize);
  uint regionVoxels = n * n * n;
  uint slot = miss.x / regionVoxels;
  uint key = gOrdered.v[orderedBatchOfSlot(gOrderCapacity) + slot] * regionVoxels + (miss.x - slot * regionVoxels);
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  uint p = gNdtWords.v[base + kNdtMissStripeFirst + stripe] + i;
  gNdtWords.v[base + ndtMissRays(gNdt.levels, gOrderCapacity, gNdt.foldLimit) + p] = miss.y;
  gNdtWords.v[base + ndtMissKeys(gNdt.levels, gOrderCapacity, gNdt.foldLimit) + p] = key;
}

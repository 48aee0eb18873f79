#version 460
// NDT free-space updates: the deferred-miss list's entries (pool index, ray), written by the
// miss pass in whatever order its invocations ran, gathered into two arrays in ray order for
// the sort by voxel key: the ray, and the voxel's batch key (as hit_keys.comp keys a hit).
// A counting sort by ray, in two dispatches over the list of two pipelines (kPlace, a
// specialization constant: NdtStrategy's missCountKernel_ and missPlaceKernel_): the first
// counts each ray's entries (ndtMissRayStarts), which the host then scans in place into each
// ray's first position; the second places each entry at its ray's next position. Within one
// ray the positions follow the GPU's order, but a ray lists a voxel at most once, so after
// the stable sort by voxel key every voxel's run is in ray order, the same in every run.
// Dispatched indirectly over the list (ordered_miss_args.comp: workgroup y is the stripe).
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_miss_order.h"

layout(local_size_x = 64) in;
// 0: count each ray's entries; 1: place them (the pass's phase, not a count: its own constant,
// so OccupancyPush::itemCount keeps meaning a count).
layout(constant_id = 1) const uint kPlace = 0u;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i >= min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity)) return;
  uvec2 miss = unpackUint2x32(gMissList.v[stripe * gStripeCapacity + i]);  // (pool index, ray)
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  uint rayStarts = base + ndtMissRayStarts(gNdt.levels, gOrderCapacity, gNdt.foldLimit);
  if (kPlace == 0u) {
    atomicAdd(gNdtWords.v[rayStarts + miss.y], 1u);
    return;
  }
  uint n = uint(gRegionSize);
  uint regionVoxels = n * n * n;
  uint slot = miss.x / regionVoxels;
  uint key = gOrdered.v[orderedBatchOfSlot(gOrderCapacity) + slot] * regionVoxels + (miss.x - slot * regionVoxels);
  uint p = atomicAdd(gNdtWords.v[rayStarts + miss.y], 1u);
  gNdtWords.v[base + ndtMissRays(gNdt.levels, gOrderCapacity, gNdt.foldLimit) + p] = miss.y;
  gNdtWords.v[base + ndtMissKeys(gNdt.levels, gOrderCapacity, gNdt.foldLimit) + p] = key;
}

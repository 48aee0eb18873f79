// NDT's free-space updates in a fixed order (NdtStrategy, ndt_miss_*.comp): the updates the
// miss pass lists for voxels with a Gaussian (the deferred-miss list, (pool index, ray)) are
// gathered into two arrays in ray order (a counting sort), sorted stably by voxel key (the batch key of
// hit_keys: batch region * region voxels + index in the region), and each voxel's run is
// applied in ray order by one invocation: the CPU reference's two-phase order (every ray's
// misses in ray order, then the hits), whatever order the GPU ran the miss pass in. When the
// list overflows, the list is dropped and every free-space update of the chunk is summed
// exactly in integers instead and applied once per voxel (ndtMissSums below): the same map in
// every run as well.
//
// Its words follow the NDT buffer's (ndtWords), from ndtMissBase, in uints:
#ifndef VOXEN_OCCUPANCY_NDT_MISS_ORDER_H
#define VOXEN_OCCUPANCY_NDT_MISS_ORDER_H

#include "occupancy_shared.h"

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kNdtMissTotal, 0u)        // listed updates (the sort's item count; 0 on overflow)
VOXEN_CONST(uint, kNdtMissOverflow, 1u)     // 1 when the list overflowed (below), else 0
VOXEN_CONST(uint, kNdtMissSumsReady, 2u)    // 1 once the overflow sums were cleared (0 from NdtStrategy)
VOXEN_CONST(uint, kNdtMissApplyArgs, 4u)    // the indirect dispatch (x, y, z) of level 0 of the apply
// The overflow's three indirect dispatches, of no workgroups without overflow: clearing the
// sums (the first time only), the walk that sums every update, and applying the sums.
VOXEN_CONST(uint, kNdtMissClearArgs, 8u)
VOXEN_CONST(uint, kNdtMissSumWalkArgs, 12u)
VOXEN_CONST(uint, kNdtMissSumArgs, 16u)
VOXEN_CONST(uint, kNdtMissLevels, 20u)      // the chunk levels' lists (below)
// NDT's own deferred-miss list, after the ordered scratch (orderedWords, which HitGrouping
// allocates that much larger under NDT), striped as the sequential order's list
// (deferredCountOffset: the same header and counts): a ray that grazes a surface crosses
// many voxels with a Gaussian (the grazing wall's beams up to about ten), so it holds
// kNdtMissesPerRay updates per ray of the batch capacity, up to kNdtMissListLimit in all
// (and never fewer than the shared list's kDeferredMissesPerRay per ray).
VOXEN_CONST(uint, kNdtMissesPerRay, 16u)
VOXEN_CONST(uint, kNdtMissListLimit, 16777216u)
VOXEN_FUNCTION uint ndtStripeCapacity(uint capacity) {
  uint entries = max(min(kNdtMissesPerRay * capacity, kNdtMissListLimit), kDeferredMissesPerRay * capacity);
  return (entries + kDeferredStripes - 1u) / kDeferredStripes;
}
VOXEN_FUNCTION uint ndtOrderedMissList(uint capacity, uint slots) { return (orderedWords(capacity, slots) + 15u) / 16u * 16u; }
VOXEN_FUNCTION uint ndtOrderedWords(uint capacity, uint slots) {
  return ndtOrderedMissList(capacity, slots) + 2u * kDeferredStripes * ndtStripeCapacity(capacity);
}
// The listed updates a batch can hold: the list's stripes.
VOXEN_FUNCTION uint ndtMissCapacity(uint capacity) { return kDeferredStripes * ndtStripeCapacity(capacity); }
VOXEN_FUNCTION uint ndtMissBase(uint levels, uint capacity, uint foldLimit, uint slots) {
  return (ndtWords(levels, capacity, foldLimit, slots) + 15u) / 16u * 16u;
}
// Level k (1 <= k < NdtParams::levels) lists the runs longer than k * foldLimit updates (a
// voxel's run is at most one update per ray): a header (x, y, z of the indirect dispatch,
// then the count) and the runs' first sorted positions.
VOXEN_FUNCTION uint ndtMissLevelCapacity(uint capacity, uint foldLimit) { return ndtMissCapacity(capacity) / foldLimit + 1u; }
VOXEN_FUNCTION uint ndtMissLevelHeader(uint level, uint capacity, uint foldLimit) {
  return kNdtMissLevels + (level - 1u) * (4u + ndtMissLevelCapacity(capacity, foldLimit));
}
// Then the two arrays of ndtMissCapacity entries: the ray of each update and its voxel key,
// then one word per ray of the batch capacity: each ray's listed updates, counted by
// ndt_miss_gather.comp's first mode and scanned into the ray's first gathered position (a
// counting sort by ray, so that one radix sort by voxel key leaves each voxel's run in ray
// order).
VOXEN_FUNCTION uint ndtMissRays(uint levels, uint capacity, uint foldLimit) {
  return (kNdtMissLevels + (levels > 1u ? levels - 1u : 0u) * (4u + ndtMissLevelCapacity(capacity, foldLimit)) + 15u) /
         16u * 16u;
}
VOXEN_FUNCTION uint ndtMissKeys(uint levels, uint capacity, uint foldLimit) {
  return ndtMissRays(levels, capacity, foldLimit) + (ndtMissCapacity(capacity) + 15u) / 16u * 16u;
}
VOXEN_FUNCTION uint ndtMissRayStarts(uint levels, uint capacity, uint foldLimit) {
  return ndtMissKeys(levels, capacity, foldLimit) + (ndtMissCapacity(capacity) + 15u) / 16u * 16u;
}
// Last, for a chunk whose list overflows: per voxel of the region cache's pools (slots x
// region voxels), the sum of the chunk's free-space updates as a signed 64-bit integer in
// units of 2^-32 log-odds (ndtMissTerm, ndt_access.glsl), added by a second walk of every
// segment (integrate_miss.comp, kSumWalk) and applied once per voxel by ndt_miss_sums.comp,
// which sets it back to 0 (and clears them all before the first overflow). Integer sums do
// not depend on the order of the additions, so an overflowing chunk gives the same map in
// every run, whereas which updates got listed depends on the GPU's scheduling.
VOXEN_FUNCTION uint ndtMissSums(uint levels, uint capacity, uint foldLimit) {
  return (ndtMissRayStarts(levels, capacity, foldLimit) + capacity + 15u) / 16u * 16u;
}
VOXEN_FUNCTION uint ndtMissWords(uint levels, uint capacity, uint foldLimit) {
  return ndtMissSums(levels, capacity, foldLimit);  // the sums' 2 words per pool voxel follow
}

VOXEN_SHARED_END

#endif

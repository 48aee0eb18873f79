// The occupancy passes' inputs, shared by the host (engine/occupancy/src/gpu_integrator.cpp)
// and the shaders (map_access.glsl, gpu_ray.glsl): the ray record, the push constants and
// the flag and counter constants.
#ifndef VOXEN_OCCUPANCY_SHARED_H
#define VOXEN_OCCUPANCY_SHARED_H

#include "../common/shared.h"
#include "../map/layer_table.h"
#include "ndt_shared.h"

VOXEN_SHARED_BEGIN

// A ray as the host prepares it (std430, 80 bytes). Positions are floats in voxel units
// relative to the start voxel's lower corner, so maps kilometres wide keep exact walks.
struct GpuRay {
  vec3 o;           // origin in voxel units relative to the start voxel's lower corner
  float intensity;  // the return's intensity (NDT-TM)
  vec3 d;           // origin to sample, in voxel units
  uint meanPacked;  // sample offset in its voxel, 10 bits per axis
  ivec3 start;      // origin voxel
  uint flags;       // kSampleHit | kSkipSample | kSkipOrigin
  ivec3 end;        // sample voxel
  uint segments;    // how many segments the walk is cut into
  uint slotBase;    // first entry of this ray's region list in the ray region slots (walk order)
  uint segmentBase; // first of this ray's (ray, segment) pairs in the segment list
  uvec2 touchTime;  // bits of the ray's time as a double (seconds, >= 0): the touch-time layer's value
};
VOXEN_SHARED_ASSERT(sizeof(GpuRay) == 80)
VOXEN_SHARED_ASSERT(offsetof(GpuRay, d) == 16 && offsetof(GpuRay, start) == 32 && offsetof(GpuRay, end) == 48)
VOXEN_SHARED_ASSERT(offsetof(GpuRay, slotBase) == 64 && offsetof(GpuRay, touchTime) == 72)

// GpuRay::flags: how the walk treats the ray's end voxels.
VOXEN_CONST(uint, kSampleHit, 1u)   // the sample voxel gets a hit (else a miss, unless excluded)
VOXEN_CONST(uint, kSkipSample, 2u)  // the sample voxel gets nothing
VOXEN_CONST(uint, kSkipOrigin, 4u)  // the origin voxel gets nothing (when it is not the sample voxel)

// OccupancyPush::flags: the map's optional layers (kLayer* of layer_table.h) and these.
VOXEN_CONST(uint, kPassReverse, 256u)
VOXEN_CONST(uint, kPassStopOnOccupied, 512u)
// UpdateOrder::Sequential: hits go through the ordered passes (hit_keys, the sort, hit_mark,
// hit_resolve) instead of integrate_hit, and the miss pass counts its misses on the batch's
// hit voxels instead of applying them.
VOXEN_CONST(uint, kPassSequential, 1024u)
// UpdateOrder::OnePass: the miss pass's invocation of a ray's first segment also applies the
// ray's hit (OHM's GPU order: no hit pass, nothing ordered between rays). kPassNdt's bits
// (2048, 4096) are in ndt_shared.h.
VOXEN_CONST(uint, kPassOnePass, 8192u)

// The sequential order's per-batch scratch (OccupancyPush::ordered), in uints: first
// kOrderedArrays arrays of OccupancyPush::orderCapacity entries, one per ray or sorted
// position.
VOXEN_CONST(uint, kOrderedPacked, 0u)    // two arrays: per sorted position, key << 32 | ray (uint64)
VOXEN_CONST(uint, kOrderedKeys, 2u)      // per ray: the key of its hit (noHitKey: no hit), sorted
VOXEN_CONST(uint, kOrderedRays, 3u)      // the ray index of each key, sorted with it (input order per voxel)
VOXEN_CONST(uint, kOrderedOriginal, 4u)  // at a run's first position: the voxel's occupancy before the batch
VOXEN_CONST(uint, kOrderedLeading, 5u)   // at a run's first position: misses before the voxel's first hit
VOXEN_CONST(uint, kOrderedTrailing, 6u)  // at a run's position p + m - 1: misses after its m-th hit
VOXEN_CONST(uint, kOrderedArrays, 7u)
// A hit's key is its voxel's batch region index * region voxels + the voxel's index in the
// region: fewer bits to sort than a cache-wide index. Then two tables (host-written per
// batch): the batch region index of each cache slot (slotCount entries) and the cache slot
// of each batch region. Then the deferred-miss list, in kDeferredStripes stripes so that
// the miss pass's appends do not all bounce one cache line between cores: a header (the x,
// y, z of the indirect dispatch that reads the list, then each stripe's count, 64 bytes
// apart) and each stripe's deferredStripeCapacity() uint64 entries: ray << 32 | the first
// sorted position of the voxel's run.
VOXEN_CONST(uint, kDeferredMissesPerRay, 4u)
VOXEN_CONST(uint, kDeferredStripes, 64u)
VOXEN_CONST(uint, kDeferredCountStride, 16u)  // uints between two stripes' counts
VOXEN_CONST(uint, kDeferredHeaderWords, 16u + 64u * 16u)
VOXEN_FUNCTION uint orderedBatchOfSlot(uint capacity) { return kOrderedArrays * capacity; }
VOXEN_FUNCTION uint orderedSlotOfBatch(uint capacity, uint slots) { return kOrderedArrays * capacity + slots; }
VOXEN_FUNCTION uint orderedMissHeader(uint capacity, uint slots) {
  return (kOrderedArrays * capacity + 2u * slots + 15u) / 16u * 16u;  // 64-byte aligned
}
VOXEN_FUNCTION uint deferredCountOffset(uint stripe) { return 16u + stripe * kDeferredCountStride; }
VOXEN_FUNCTION uint orderedMissList(uint capacity, uint slots) {
  return orderedMissHeader(capacity, slots) + kDeferredHeaderWords;
}
VOXEN_FUNCTION uint deferredStripeCapacity(uint capacity) {
  return (kDeferredMissesPerRay * capacity + kDeferredStripes - 1u) / kDeferredStripes;
}
// Then the list of runs (the first sorted position of each voxel's run of hits) that
// hit_resolve.comp replays, striped the same way (header, then the stripes): stripe s holds
// the heads found by the hit_mark workgroups w with w % kDeferredStripes == s, at most 64
// each, so it never fills up.
VOXEN_FUNCTION uint runStripeCapacity(uint capacity) { return (capacity + 64u * kDeferredStripes - 1u) / (64u * kDeferredStripes) * 64u; }
VOXEN_FUNCTION uint orderedRunHeader(uint capacity, uint slots) {
  return orderedMissList(capacity, slots) + 2u * kDeferredStripes * deferredStripeCapacity(capacity);
}
VOXEN_FUNCTION uint orderedRunList(uint capacity, uint slots) { return orderedRunHeader(capacity, slots) + kDeferredHeaderWords; }
VOXEN_FUNCTION uint orderedWords(uint capacity, uint slots) {
  return orderedRunList(capacity, slots) + kDeferredStripes * runStripeCapacity(capacity);
}
// While a batch's ordered passes run, a voxel with hits in the batch holds
// kOrderedMarker + (the first position of its run) instead of its occupancy: a NaN with the
// sign bit set, which no clamped log-odds value or unobserved (+inf) voxel can be. The
// miss pass recognises it in the value it loads anyway and defers the miss to the list
// above (an atomic and a store: every instruction of the walk loop is paid by every lane on
// lavapipe, so the search happens in its own pass).
VOXEN_CONST(uint, kOrderedMarker, 0xFF800001u)
VOXEN_CONST(uint, kMaxOrderedRays, 0x007FFFFEu)  // positions that fit the marker: 2^23 - 2
// Loop steps a resolve invocation may take (lavapipe stops an invocation's loops after
// 65,535 iterations): past it the voxel keeps the value reached and the rest is counted
// as dropped updates.
VOXEN_CONST(uint, kMaxResolveSteps, 60000u)

// Retries of one compare-and-swap before the update is counted as dropped. A compare-and-swap
// loses only when another invocation's succeeds on the same word, and a pass writes a word at
// most once per ray, so an invocation retries at most once per other ray of its batch: the
// bound is the largest batch `voxen map --batch-size` takes (2^22 rays), not fewer. With 64, an
// H100 dropped 20,773 updates of the README run in the one-pass order and ~37,000 NDT updates
// in `voxen check`: a voxel that hits and misses move both ways never saturates, so every
// contender must write, one at a time. (lavapipe, with 16 lanes in flight, never came near
// 64.) What the bound still guards against is a driver without forward progress between
// invocations; the dropped-update counter reports what it stops.
VOXEN_CONST(uint, kMaxCasRetries, 4194304u)

// The counters: kCounterStripes copies kCounterStride uint64 apart (64 bytes), one chosen
// per workgroup, summed by the host; within a copy, these entries.
VOXEN_CONST(uint, kCounterStripes, 64u)
VOXEN_CONST(uint, kCounterStride, 8u)
VOXEN_CONST(uint, kCounterUpdates, 0u)         // voxel updates applied
VOXEN_CONST(uint, kCounterDropped, 1u)         // updates dropped after kMaxCasRetries
VOXEN_CONST(uint, kCounterMissingRegions, 2u)  // lookups of regions absent from the cache
VOXEN_CONST(uint, kCounterRewalks, 3u)         // segments walked twice: the deferred-miss list was full
VOXEN_CONST(uint, kCounterNdtFoldInvocations, 4u)  // NDT hit fold: invocations launched (first chunks)
VOXEN_CONST(uint, kCounterNdtSampleVoxels, 5u)     // NDT hit fold: distinct sample voxels folded
VOXEN_CONST(uint, kCounterCasRetries, 6u)          // compare-and-swaps that lost a race and were retried

// The push constants of every occupancy pass (all 128 bytes Vulkan guarantees). The layers
// are one address: adding a layer does not grow this block.
struct OccupancyPush {
  VOXEN_ADDRESS rays;        // GpuRay[]
  VOXEN_ADDRESS segments;    // uvec2[]: (ray, segment index)
  VOXEN_ADDRESS layers;      // LayerTable: the region cache's pool of every layer
  VOXEN_ADDRESS entrySlots;  // uint[] per discovery set entry: its cache slot, or kNotInChunk
  VOXEN_ADDRESS counters;    // uint64[kCounterStripes * kCounterStride]
  VOXEN_ADDRESS stop;        // uint[] per ray: bits of the t to stop before (+inf: no stop)
  VOXEN_ADDRESS raySlots;    // uint[]: per ray its sample region's set entry, then from slotBase the set entry of each region on its walk
  uint itemCount;            // segments or rays in this dispatch
  uint pad0;
  uint pad1;
  int regionSize;
  float hitValue;
  float missValue;
  float clampMin;
  float clampMax;
  float threshold;
  uint flags;                // kLayer* bits | kPass* bits
  VOXEN_ADDRESS ordered;     // kPassSequential: uint[kOrderedArrays * orderCapacity]
  uint orderCapacity;        // rays per ordered array
  uint rayCount;             // rays in this batch
  uint noHitKey;             // the key of a ray without a hit: above every key of the batch
  uint slotCount;            // the region cache's slots (the ordered scratch's layout)
  VOXEN_ADDRESS ndt;         // kPassNdt: NdtParams, then the chunk-level lists (ndtLevel*)
};
VOXEN_SHARED_ASSERT(sizeof(OccupancyPush) == 128)

// The NDT hit fold's run lists past the first chunk (after NdtParams, in uints): level k
// (1 <= k < NdtParams::levels) lists the runs longer than k * foldLimit samples. Each level
// is a header (the indirect dispatch's x, y, z and the count) and at most
// ndtLevelCapacity entries (the first sorted position of the run).
VOXEN_CONST(uint, kNdtRunTotal, 12u)      // the compaction's count of runs (NdtParams is 12 uints)
VOXEN_CONST(uint, kNdtRunArgs, 13u)       // and its indirect dispatch (x, y, z) of ndt_fold.comp
VOXEN_CONST(uint, kNdtLevelsOffset, 16u)
VOXEN_FUNCTION uint ndtLevelCapacity(uint capacity, uint foldLimit) { return capacity / foldLimit + 1u; }
VOXEN_FUNCTION uint ndtLevelHeader(uint level, uint capacity, uint foldLimit) {
  return kNdtLevelsOffset + (level - 1u) * (4u + ndtLevelCapacity(capacity, foldLimit));
}
// Then the region key of every cache slot (ivec4: x, y, z, unused; host-written per batch
// for the batch's slots): ndt_misses.comp finds a listed voxel's coordinates from its pool
// index with it.
VOXEN_FUNCTION uint ndtSlotKeys(uint levels, uint capacity, uint foldLimit) {
  return (kNdtLevelsOffset + (levels > 1u ? levels - 1u : 0u) * (4u + ndtLevelCapacity(capacity, foldLimit)) + 3u) / 4u * 4u;
}
VOXEN_FUNCTION uint ndtWords(uint levels, uint capacity, uint foldLimit, uint slots) {
  return ndtSlotKeys(levels, capacity, foldLimit) + 4u * slots;
}

VOXEN_SHARED_END

#endif

#pragma once
#include <cstdint>
#include <optional>

#include "voxen/map/ray.hpp"

namespace voxen {

// A ray an integrator skipped, as it was given: its index counts every ray passed to the
// integrator (0-based, across integrate() calls).
struct RejectedRay {
  uint64_t index = 0;
  Ray ray;
  bool nonFinite = false;  // a non-finite origin or sample
  bool nonFiniteIntensity = false;  // NDT-TM: a NaN or infinite intensity
  // Neither: too far from the map's origin (voxel coordinates past +-2^29).
};

// What an integrator did, summed over its batches.
struct IntegrationStats {
  uint64_t rays = 0;             // rays integrated (rejected rays not included)
  uint64_t clippedRays = 0;      // longer than maxRange, clipped (their end counted free)
  // Skipped rays: a non-finite origin or sample, one whose voxel coordinates would not fit
  // the int32 walk (ray_walk.hpp kMaxVoxelCoordinate), and in NDT-TM one whose intensity is
  // NaN or infinite. Both integrators skip the same rays.
  uint64_t rejectedRays = 0;
  // rejectedRays by reason (they add up to it): what a run that mapped nothing tells the user.
  uint64_t rejectedNonFinite = 0, rejectedTooFar = 0, rejectedIntensity = 0;
  std::optional<RejectedRay> firstRejected;
  uint64_t voxelUpdates = 0;     // occupancy updates applied (misses + hits)
  uint64_t droppedUpdates = 0;   // GPU: updates abandoned after the bounded CAS retries
  uint64_t casRetries = 0;       // GPU: compare-and-swaps that lost a race and were retried
  // GPU, sequential order: segments walked a second time because the batch's list of misses
  // on voxels with hits was full (more than 4 per ray); a cost, not an error.
  uint64_t rewalkedSegments = 0;
  // GPU, NDT: invocations the hit fold launched for its first chunks (whole workgroups), and
  // the distinct sample voxels they folded, summed over batches: one invocation per distinct
  // sample voxel, plus the last workgroup's idle tail per batch.
  uint64_t ndtFoldInvocations = 0;
  uint64_t ndtSampleVoxels = 0;
  uint64_t batches = 0;
  // GPU: region chunks integrated, one per batch plus one more for each cache's worth of
  // regions past the first when a batch touched more regions than the cache holds.
  uint64_t regionChunks = 0;
  // GPU: batches whose regions were looked up in the region cache on the GPU, in the batch's
  // own submission (GpuIntegratorOptions::residencyLookup), and the regions those lookups
  // found absent (integrated in a second chunk once the host had loaded them).
  uint64_t gpuLookupBatches = 0;
  uint64_t lookupMissedRegions = 0;

  // Adds every count of `more`. firstRejected stays this one's when it has one, else becomes
  // `more`'s with the index `more` gave it: a caller adding stats of rays it passed after
  // these offsets that index itself.
  IntegrationStats& operator+=(const IntegrationStats& more) {
    if (!firstRejected) firstRejected = more.firstRejected;
    rays += more.rays;
    clippedRays += more.clippedRays;
    rejectedRays += more.rejectedRays;
    rejectedNonFinite += more.rejectedNonFinite;
    rejectedTooFar += more.rejectedTooFar;
    rejectedIntensity += more.rejectedIntensity;
    voxelUpdates += more.voxelUpdates;
    droppedUpdates += more.droppedUpdates;
    casRetries += more.casRetries;
    rewalkedSegments += more.rewalkedSegments;
    ndtFoldInvocations += more.ndtFoldInvocations;
    ndtSampleVoxels += more.ndtSampleVoxels;
    batches += more.batches;
    regionChunks += more.regionChunks;
    gpuLookupBatches += more.gpuLookupBatches;
    lookupMissedRegions += more.lookupMissedRegions;
    return *this;
  }
};

}  // namespace voxen

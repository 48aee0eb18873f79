#pragma once
#include <cstdint>

namespace voxen {

// What an integrator did, summed over its batches.
struct IntegrationStats {
  uint64_t rays = 0;
  uint64_t clippedRays = 0;      // longer than maxRange, clipped (their end counted free)
  uint64_t voxelUpdates = 0;     // occupancy updates applied (misses + hits)
  uint64_t droppedUpdates = 0;   // GPU: updates abandoned after the bounded CAS retries
  uint64_t batches = 0;
};

}  // namespace voxen

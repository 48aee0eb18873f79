#pragma once
// Clearance on the GPU. Target regions are processed in batches: each batch's regions and
// every region within the range of them are made resident in a region cache (the map's own
// layout, clearance layer included), and three passes run per batch over each target's
// block padded by the range: the x pass reads the obstacles from the cache and takes the
// lower envelope along x, then the y and z passes take it along y and z over the lines the
// region needs; the z pass writes the clearance into the cache, which is copied back to the
// host map at the end (the exact technique). The propagation techniques (ROI, neighbour,
// open list; ClearanceOptions) keep each voxel's nearest obstacle so far as a 64-bit key
// and run their iterations per batch in the same way, then write the layer.
#include <memory>
#include <span>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/host/buffer.hpp"

namespace voxen {

class Kernel;
class RegionCache;
struct RegionCacheStats;
class Scheduler;
struct BufferUse;

struct GpuClearanceOptions {
  uint64_t cacheBytes = 256ull << 20;  // regions resident at once (targets and their neighbours)
  uint64_t fieldBytes = 128ull << 20;  // the padded blocks of one batch (4 bytes per voxel)
};

class GpuClearance {
 public:
  // Adds the clearance layer to the map when missing. Throws Error for options that cannot
  // work (ClearanceOptions::validate) or a cache too small for one region's neighbourhood.
  GpuClearance(Scheduler& scheduler, OccupancyMap& map, ClearanceOptions options, GpuClearanceOptions gpuOptions = {});
  ~GpuClearance();

  // Computes the clearance of `targets` (every region of the map when empty; keys the map
  // lacks are skipped), waits, and copies it into the host map.
  ClearanceStats compute(std::span<const RegionKey> targets = {});
  // Only the regions out of date (clearanceDirtyRegions: their occupancy or a neighbour's
  // within range changed since they were computed with these settings).
  ClearanceStats update();
  // Loads and evictions of the region cache so far.
  const RegionCacheStats& cacheStats() const;

 private:
  void recordBatch(const std::vector<RegionKey>& targets, const std::vector<RegionKey>& resident);
  gpu::ClearancePush batchPush(uint32_t blocks) const;
  void recordExact(gpu::ClearancePush push, const std::vector<BufferUse>& uses);
  void recordPropagation(gpu::ClearancePush push, const std::vector<BufferUse>& uses);
  // Iterations of the propagation techniques: enough face steps for any obstacle within
  // range to reach every voxel it is nearest to (the open list stops early when its list
  // empties; this is its hard cap).
  uint32_t iterations() const;

  Scheduler& scheduler_;
  OccupancyMap& map_;
  ClearanceOptions options_;
  GpuClearanceOptions gpuOptions_;
  std::unique_ptr<RegionCache> cache_;
  std::shared_ptr<Kernel> seedKernel_, envelopeKernel_;  // exact
  std::shared_ptr<Kernel> keySeedKernel_, propagateKernel_, roiSeedKernel_, openListKernel_, listResetKernel_,
      keyOutputKernel_, stepArgsKernel_;  // propagation
  Buffer field_, other_, lists_, targets_;
  Buffer steps_;  // neighbour and ROI: the next step's indirect dispatch and the changed flag
  uint32_t maxBlocks_ = 0;
  uint64_t batchStamp_ = 0;
};

}  // namespace voxen

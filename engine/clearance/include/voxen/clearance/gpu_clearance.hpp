#pragma once
// Clearance on the GPU. Target regions are processed in batches: each batch's regions and
// every region within the range of them are made resident in a region cache (the map's own
// layout, clearance layer included), and three passes run per batch over each target's
// block padded by the range: the x pass reads the obstacles from the cache and takes the
// lower envelope along x, then the y and z passes take it along y and z over the lines the
// region needs; the z pass writes the clearance into the cache, which is copied back to the
// host map at the end. The technique is the exact separable transform (ClearanceOptions).
#include <memory>
#include <span>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/host/buffer.hpp"

namespace voxen {

class Kernel;
class RegionCache;
class Scheduler;

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

 private:
  void recordBatch(const std::vector<RegionKey>& targets, const std::vector<RegionKey>& resident);

  Scheduler& scheduler_;
  OccupancyMap& map_;
  ClearanceOptions options_;
  GpuClearanceOptions gpuOptions_;
  std::unique_ptr<RegionCache> cache_;
  std::shared_ptr<Kernel> seedKernel_, envelopeKernel_;
  Buffer field_, targets_;
  uint32_t maxBlocks_ = 0;
  uint64_t batchStamp_ = 0;
};

}  // namespace voxen

#pragma once
// Clearance on the GPU. Target regions are processed in batches: each batch's regions and
// every region within the range of them are made resident in a region cache (the map's own
// layout, clearance layer included), and three passes run per batch over each target's
// block padded by the range: the x pass reads the obstacles from the cache and keeps the
// squared distance along x at the x inside the region (4 bytes per voxel of region size x
// by x bz), then the y and z passes take the lower envelope along y and z over the lines the
// region needs; the z pass writes the clearance into the cache, which is copied back to the
// host map at the end (the exact technique). The propagation techniques (ROI, neighbour,
// open list; ClearanceOptions) keep each voxel's nearest obstacle so far as a 64-bit key
// and run their iterations per batch in the same way, then write the layer.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/clearance_changes.hpp"
#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/host/buffer.hpp"

namespace voxen {

class Kernel;
class RegionCache;
struct RegionCacheStats;
class Scheduler;
struct BufferUse;

struct GpuClearanceOptions {
  // Regions resident at once (targets and their neighbours). When one target's neighbours
  // within the range that the map has need more, the cache grows to hold them (within
  // memoryLimitBytes).
  uint64_t cacheBytes = 256ull << 20;
  // The padded blocks of one batch (the exact technique: 4 bytes per voxel at the x inside
  // the region; the propagation techniques: 16 to 20 bytes per block voxel): at least one
  // block, within memoryLimitBytes.
  uint64_t fieldBytes = 128ull << 20;
  // What the region cache and the blocks may take together (device memory; host memory on a
  // CPU driver). 0: voxen::defaultMemoryBudgetBytes().
  uint64_t memoryLimitBytes = 0;
  // Ends the error when something does not fit, e.g. "raise --memory-budget (now 2048 MB)".
  std::string memoryHint = "raise the memory limit";
  ClearanceProgress progress;  // called after each batch is submitted
};

class GpuClearance {
 public:
  // Adds the clearance layer to the map when missing. Throws ClearanceSettingsError for
  // options that cannot work (ClearanceOptions::validate), and Error naming the technique,
  // the range and the memory limit when one block does not fit it.
  GpuClearance(Scheduler& scheduler, OccupancyMap& map, ClearanceOptions options, GpuClearanceOptions gpuOptions = {});
  ~GpuClearance();

  // Computes the clearance of `targets` (every region of the map when empty; keys the map
  // lacks are skipped), waits, and copies it into the host map. Throws Error naming the
  // memory limit and the range when one target and the regions within its range that the
  // map has do not fit the memory limit.
  ClearanceStats compute(std::span<const RegionKey> targets = {});
  // Only the regions out of date (clearanceDirtyRegions: their occupancy or a neighbour's
  // within range changed since they were computed with these settings).
  ClearanceStats update();
  // Parts of regions (planClearanceUpdate): each target's voxels [lo, hi) are recomputed,
  // the rest of its clearance kept; the same values a whole-region computation gives there.
  // A target smaller than its region needs clearanceComputesParts (Error otherwise); keys
  // the map lacks are skipped; none: no work.
  ClearanceStats computeParts(std::span<const ClearanceTarget> targets);
  // Loads and evictions of the region cache so far.
  const RegionCacheStats& cacheStats() const;
  // Regions the region cache holds now.
  size_t cacheRegions() const;
  // Per target region, the passes' work relative to the exact technique's (1 for exact):
  // the propagation techniques' iterations over their grids, to warn before a slow run.
  double relativeWork() const;
  uint32_t iterationsPerBatch() const { return iterations(); }

 private:
  ClearanceStats run(std::vector<ClearanceTarget> targets);
  void recordBatch(const std::vector<ClearanceTarget>& targets, const std::vector<RegionKey>& resident);
  // Grows the region cache to `slots` regions when it holds fewer (within the memory limit).
  void ensureCacheSlots(size_t slots);
  void allocateBlocks();
  struct BlockBuffers {
    uint64_t field = 0, other = 0, list = 0;  // bytes per block
    uint64_t gridVoxels = 0;                  // elements per block of the largest buffer
  };
  BlockBuffers blockBuffers() const;
  gpu::ClearancePush batchPush(uint32_t blocks) const;
  void recordExact(gpu::ClearancePush push, const std::vector<ClearanceTarget>& targets, const std::vector<BufferUse>& uses);
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
  // Exact with one scale on every axis (voxel squares): the clearance of each squared voxel
  // distance within the range, uploaded once; maxSquared_ + 1 floats. Empty otherwise.
  Buffer metres_;
  uint32_t maxSquared_ = 0;
  uint32_t maxBlocks_ = 0;
  uint64_t blockBytes_ = 0;  // the field buffers' bytes per block
  uint64_t memoryLimit_ = 0;
  uint64_t batchStamp_ = 0;
};

}  // namespace voxen

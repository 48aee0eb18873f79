#pragma once
// NDT-OM and NDT-TM, in two-phase order (free space, then the folds), as OHM's GPU NDT does;
// the sequential order would need every miss's ray in the replay, not just a count. The
// free-space updates of voxels with a Gaussian are listed, sorted by (voxel, ray) and
// applied by one invocation per voxel in ray order; the hits are grouped by sample voxel
// (HitGrouping), each voxel's run of hits is listed with a stream compaction, and one
// invocation per run folds its samples in input order. No order is left to atomics, so a
// map is the same bit for bit in every run; a chunk whose free-space list overflows sums its
// free-space updates exactly in integers instead (see recordUpdates), the same in every run too.
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/occupancy/hit_grouping.hpp"
#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

class ExclusiveScan;
class RadixSort;
class StreamCompaction;

class NdtStrategy final : public IntegrationStrategy {
 public:
  explicit NdtStrategy(const StrategySetup& setup);
  ~NdtStrategy() override;
  void recordUpdates(const ChunkPasses& chunk) override;

 private:
  Scheduler& scheduler_;
  const OccupancyMap& map_;
  uint32_t capacity_;  // rays per batch
  uint32_t slots_;     // cache slots
  uint32_t foldLimit_;
  HitGrouping grouping_;
  std::unique_ptr<StreamCompaction> compaction_;
  std::unique_ptr<RadixSort> missSort_;  // the listed free-space updates (in ray order) by voxel
  std::unique_ptr<ExclusiveScan> rayScan_;  // each ray's first position among them
  uint32_t missCapacity_;  // listed free-space updates a batch holds (gpu::ndtMissCapacity)
  Buffer ndt_;  // gpu::NdtParams, the run total, the chunk-level lists, the slot keys, then the
                // free-space order's words (gpu::ndtMissBase: its counts, levels, arrays and
                // the overflow sums, 8 bytes per pool voxel)
  uint64_t slotKeysOffset_ = 0;
  uint64_t missBase_ = 0;  // words
  uint32_t levels_ = 1;
  std::vector<uint32_t> slotKeys_;       // the region key of each cache slot (ivec4), uploaded per chunk
  std::vector<uint32_t> levelTemplate_;  // the chunk-level lists emptied, uploaded per chunk
  std::shared_ptr<Kernel> missKernel_, missArgsKernel_, missCountKernel_, missPlaceKernel_, missApplyKernel_, missSumsKernel_, runsKernel_,
      foldKernel_;
  std::shared_ptr<Kernel> sumWalkKernel_, sumsClearKernel_;  // the overflow's (recordUpdates)
  void recordFreeSpaceOrder(const gpu::OccupancyPush& push, const std::vector<BufferUse>& uses, uint32_t keyBits);
};

}  // namespace voxen

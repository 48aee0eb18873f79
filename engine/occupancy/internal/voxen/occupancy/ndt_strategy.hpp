#pragma once
// NDT-OM and NDT-TM, in two-phase order (free space, then the folds), as OHM's GPU NDT does;
// the sequential order would need every miss's ray in the replay, not just a count. The
// hits are grouped by sample voxel (HitGrouping), each voxel's run of hits is listed with a
// stream compaction, and one invocation per run folds its samples in input order.
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/occupancy/hit_grouping.hpp"
#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

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
  Buffer ndt_;  // gpu::NdtParams, then the run total, the chunk-level lists and the slot keys
  uint64_t slotKeysOffset_ = 0;
  std::vector<uint32_t> slotKeys_;       // the region key of each cache slot (ivec4), uploaded per chunk
  std::vector<uint32_t> levelTemplate_;  // the chunk-level lists emptied, uploaded per chunk
  std::shared_ptr<Kernel> missKernel_, ndtMissesKernel_, runsKernel_, foldKernel_;
};

}  // namespace voxen

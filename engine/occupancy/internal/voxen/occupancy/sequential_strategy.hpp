#pragma once
// UpdateOrder::Sequential: a chunk's hits grouped by voxel with a stable radix sort; the
// miss pass counts the misses on those voxels by the hits they fall between, and one
// invocation per such voxel replays its updates in input order. The map equals the
// sequential CPU reference's bit for bit, whatever the batch size.
#include <memory>

#include "voxen/occupancy/hit_grouping.hpp"
#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

class SequentialStrategy final : public IntegrationStrategy {
 public:
  explicit SequentialStrategy(const StrategySetup& setup);
  void recordUpdates(const ChunkPasses& chunk) override;

 private:
  Scheduler& scheduler_;
  HitGrouping grouping_;
  std::shared_ptr<Kernel> hitMarkKernel_, missKernel_, orderedMissesKernel_, hitResolveKernel_;
};

}  // namespace voxen

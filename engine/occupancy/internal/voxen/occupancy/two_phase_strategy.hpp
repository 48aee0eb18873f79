#pragma once
// UpdateOrder::TwoPhase: a chunk's misses, then its hits in one pass (cheaper than the
// sequential order; the map depends on the batch size).
#include <memory>

#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

class TwoPhaseStrategy final : public IntegrationStrategy {
 public:
  explicit TwoPhaseStrategy(const StrategySetup& setup);
  void recordUpdates(const ChunkPasses& chunk) override;

 private:
  Scheduler& scheduler_;
  std::shared_ptr<Kernel> missKernel_, hitKernel_;
};

}  // namespace voxen

#pragma once
// UpdateOrder::OnePass: one miss pass whose invocation of a ray's first segment also applies
// the ray's hit (OHM's GPU order). One dispatch a chunk, nothing ordered between rays.
#include <memory>

#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

class OnePassStrategy final : public IntegrationStrategy {
 public:
  explicit OnePassStrategy(const StrategySetup& setup);
  void recordUpdates(const ChunkPasses& chunk) override;

 private:
  Scheduler& scheduler_;
  std::shared_ptr<Kernel> missKernel_;
};

}  // namespace voxen

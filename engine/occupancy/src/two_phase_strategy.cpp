#include "voxen/occupancy/two_phase_strategy.hpp"

#include "voxen/host/scheduler.hpp"

namespace voxen {

TwoPhaseStrategy::TwoPhaseStrategy(const StrategySetup& setup)
    : scheduler_(setup.scheduler),
      missKernel_(occupancyKernel(setup.scheduler, "occupancy/integrate_miss.comp", setup.passFlags)),
      hitKernel_(occupancyKernel(setup.scheduler, "occupancy/integrate_hit.comp", setup.passFlags)) {}

void TwoPhaseStrategy::recordUpdates(const ChunkPasses& chunk) {
  gpu::OccupancyPush push = chunk.push;
  push.itemCount = chunk.segmentCount;
  scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, chunk.uses}, chunk.segmentCount);
  push.itemCount = push.rayCount;
  scheduler_.dispatchThreads({"occupancy hit pass", hitKernel_.get(), {}, push, chunk.uses}, push.rayCount);
}

}  // namespace voxen

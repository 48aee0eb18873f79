#include "voxen/occupancy/one_pass_strategy.hpp"

#include "voxen/host/scheduler.hpp"

namespace voxen {

OnePassStrategy::OnePassStrategy(const StrategySetup& setup)
    : scheduler_(setup.scheduler),
      missKernel_(occupancyKernel(setup.scheduler, "occupancy/integrate_miss.comp", setup.passFlags)) {}

void OnePassStrategy::recordUpdates(const ChunkPasses& chunk) {
  gpu::OccupancyPush push = chunk.push;
  push.itemCount = chunk.segmentCount;
  scheduler_.dispatchThreads({"occupancy miss and hit pass", missKernel_.get(), {}, push, chunk.uses},
                             chunk.segmentCount);
}

}  // namespace voxen

#include "voxen/occupancy/sequential_strategy.hpp"

#include "voxen/host/scheduler.hpp"

namespace voxen {

SequentialStrategy::SequentialStrategy(const StrategySetup& setup)
    : scheduler_(setup.scheduler),
      grouping_(setup),
      hitMarkKernel_(occupancyKernel(setup.scheduler, "occupancy/hit_mark.comp", setup.passFlags)),
      missKernel_(occupancyKernel(setup.scheduler, "occupancy/integrate_miss.comp", setup.passFlags)),
      orderedMissesKernel_(occupancyKernel(setup.scheduler, "occupancy/ordered_misses.comp", setup.passFlags)),
      hitResolveKernel_(occupancyKernel(setup.scheduler, "occupancy/hit_resolve.comp", setup.passFlags)) {}

// After the batcher's stop search: the hit keys, their sort, the marks, the miss pass with
// its deferred misses, and the replay of each marked voxel's updates.
void SequentialStrategy::recordUpdates(const ChunkPasses& chunk) {
  gpu::OccupancyPush push = chunk.push;
  std::vector<BufferUse> uses = chunk.uses;
  const uint32_t keyBits = grouping_.prepare(push, uses, chunk.keySlots);
  grouping_.recordKeysPass(push, uses);
  grouping_.recordSort(push.rayCount, keyBits);
  scheduler_.dispatchThreads({"occupancy hit marks", hitMarkKernel_.get(), {}, push, uses}, push.rayCount);
  push.itemCount = chunk.segmentCount;
  scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, uses}, chunk.segmentCount);
  grouping_.recordListSizes(push, uses);
  scheduler_.dispatchIndirect({"occupancy deferred misses", orderedMissesKernel_.get(), {}, push, uses},
                              grouping_.missArgs());
  scheduler_.dispatchIndirect({"occupancy hit resolve", hitResolveKernel_.get(), {}, push, uses}, grouping_.runArgs());
}

}  // namespace voxen

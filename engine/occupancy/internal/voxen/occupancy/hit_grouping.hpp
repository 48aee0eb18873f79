#pragma once
// Grouping a batch's hits by voxel, which the sequential order and NDT share: the scratch of
// occupancy_shared.h's kOrdered* arrays, the hit keys pass (hit_keys.comp: keys, and the hit
// updates of the layers that commute), the stable radix sort of the keys with their rays,
// and the pass that sizes the deferred-miss and run lists (ordered_miss_args.comp).
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/occupancy/integration_strategy.hpp"

namespace voxen {

class RadixSort;

class HitGrouping {
 public:
  explicit HitGrouping(const StrategySetup& setup);
  ~HitGrouping();

  // Sets the push fields and uploads the slot tables of this chunk's regions, adds the
  // scratch to `uses`; returns the bits of this chunk's keys.
  uint32_t prepare(gpu::OccupancyPush& push, std::vector<BufferUse>& uses, const std::vector<uint32_t>& keySlots);
  void recordKeysPass(gpu::OccupancyPush push, const std::vector<BufferUse>& uses);
  // Each voxel's hits together, in input order.
  void recordSort(uint32_t rayCount, uint32_t keyBits);
  void recordListSizes(const gpu::OccupancyPush& push, const std::vector<BufferUse>& uses);

  // The indirect dispatch arguments recordListSizes writes.
  BufferRange missArgs() const;
  BufferRange runArgs() const;
  // The kOrdered* array `array`, its first `count` words.
  BufferRange array(uint32_t array, uint32_t count) const;
  // Words [first, first + count) of the scratch.
  BufferRange words(uint64_t first, uint64_t count) const;

 private:
  Scheduler& scheduler_;
  uint32_t capacity_;  // rays per batch
  uint32_t slots_;
  uint64_t regionVoxels_;
  Buffer ordered_;
  std::unique_ptr<RadixSort> sort_;
  std::vector<uint32_t> batchOfSlot_;  // each cache slot's batch region index
  std::shared_ptr<Kernel> keysKernel_, listSizesKernel_;
};

}  // namespace voxen

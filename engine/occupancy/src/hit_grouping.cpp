#include "voxen/occupancy/hit_grouping.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "voxen/gpu/occupancy/ndt_miss_order.h"
#include "voxen/host/error.hpp"
#include "voxen/host/memory_stats.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/primitives/radix_sort.hpp"

namespace voxen {

HitGrouping::HitGrouping(const StrategySetup& setup)
    : scheduler_(setup.scheduler),
      capacity_(setup.gpuOptions.maxRaysPerBatch),
      slots_(setup.cacheSlots),
      regionVoxels_(uint64_t(setup.map.regionSize()) * setup.map.regionSize() * setup.map.regionSize()) {
  if (capacity_ > gpu::kMaxOrderedRays)
    throw Error("batch size " + std::to_string(capacity_) + " is above the limit of " +
                std::to_string(gpu::kMaxOrderedRays) + " rays for grouping hits by voxel");
  if (uint64_t(slots_) * regionVoxels_ >= (uint64_t(1) << 32))
    throw SettingError(SettingError::Kind::Change, "GpuIntegratorOptions::cacheBytes", "the GPU region cache",
                       "the GPU cache holds more voxels than 32-bit hit keys reach: lower {}",
                       formatBytes(setup.gpuOptions.cacheBytes));
  // NDT lists its free-space updates in a larger list of its own after the scratch.
  const uint64_t words = setup.options.ndt.mode != NdtMode::Off ? gpu::ndtOrderedWords(capacity_, slots_)
                                                                 : gpu::orderedWords(capacity_, slots_);
  ordered_ = Buffer(scheduler_.device(), "occupancy ordered hits", words * 4);
  batchOfSlot_.assign(slots_, 0);
  sort_ = std::make_unique<RadixSort>(scheduler_, capacity_);
  keysKernel_ = occupancyKernel(scheduler_, "occupancy/hit_keys.comp", setup.passFlags);
  listSizesKernel_ = occupancyKernel(scheduler_, "occupancy/ordered_miss_args.comp", setup.passFlags);
}

HitGrouping::~HitGrouping() = default;

uint32_t HitGrouping::prepare(gpu::OccupancyPush& push, std::vector<BufferUse>& uses,
                              const std::vector<uint32_t>& keySlots) {
  // Keys are (batch region, voxel in region): as few bits as this chunk's regions need.
  const uint64_t keys = uint64_t(keySlots.size()) * regionVoxels_;  // keys are below this
  const uint32_t keyBits = uint32_t(std::bit_width(keys));          // so that 2^keyBits - 1 >= keys
  push.ordered = ordered_.address();
  push.orderCapacity = capacity_;
  push.noHitKey = uint32_t((uint64_t(1) << keyBits) - 1);
  push.slotCount = slots_;
  for (uint32_t b = 0; b < keySlots.size(); ++b) batchOfSlot_[keySlots[b]] = b;
  scheduler_.upload(words(gpu::orderedBatchOfSlot(capacity_), slots_), batchOfSlot_.data(), uint64_t(slots_) * 4);
  scheduler_.upload(words(gpu::orderedSlotOfBatch(capacity_, slots_), keySlots.size()), keySlots.data(),
                    keySlots.size() * 4ull);
  uses.push_back(readsWrites(ordered_.range()));
  return keyBits;
}

void HitGrouping::recordKeysPass(gpu::OccupancyPush push, const std::vector<BufferUse>& uses) {
  push.itemCount = push.rayCount;
  scheduler_.dispatchThreads({"occupancy hit keys", keysKernel_.get(), {}, push, uses},
                             std::max(push.rayCount, gpu::kDeferredStripes));
}

void HitGrouping::recordSort(uint32_t rayCount, uint32_t keyBits) {
  sort_->record(array(gpu::kOrderedKeys, rayCount), array(gpu::kOrderedRays, rayCount), rayCount, keyBits);
}

void HitGrouping::recordListSizes(const gpu::OccupancyPush& push, const std::vector<BufferUse>& uses) {
  scheduler_.dispatch({"occupancy ordered list sizes", listSizesKernel_.get(), {1, 1, 1}, push, uses});
}

BufferRange HitGrouping::missArgs() const { return words(gpu::orderedMissHeader(capacity_, slots_), 3); }

BufferRange HitGrouping::runArgs() const { return words(gpu::orderedRunHeader(capacity_, slots_), 3); }

BufferRange HitGrouping::array(uint32_t index, uint32_t count) const {
  return ordered_.range(uint64_t(index) * capacity_ * 4, uint64_t(count) * 4);
}

BufferRange HitGrouping::words(uint64_t first, uint64_t count) const { return ordered_.range(first * 4, count * 4); }

}  // namespace voxen

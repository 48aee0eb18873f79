#include "voxen/primitives/radix_sort.hpp"

#include "voxen/gpu/primitives/radix_sort.h"

#include <algorithm>
#include <string>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

using gpu::kRadixDigits;
using gpu::kRadixMaxDigitBits;
using gpu::kRadixTileItems;

BufferRange prefix(const BufferRange& range, VkDeviceSize bytes) {
  return {range.buffer, range.offset, bytes, range.address, range.name};
}

uint32_t tilesFor(uint32_t items) { return (items + kRadixTileItems - 1) / kRadixTileItems; }

}  // namespace

RadixSort::RadixSort(Scheduler& scheduler, uint32_t maxItems)
    : scheduler_(scheduler),
      maxItems_(maxItems),
      maxTiles_(std::max(tilesFor(maxItems), 1u)),
      scan_(scheduler) {
  if (maxItems > kMaxItemsLimit)
    throw Error("radix sort for " + std::to_string(maxItems) + " items: at most " + std::to_string(kMaxItemsLimit));
  static_assert(uint64_t(kRadixDigits) * (kMaxItemsLimit / kRadixTileItems) <= ExclusiveScan::kMaxItems);
  const VkDeviceSize itemBytes = std::max<VkDeviceSize>(VkDeviceSize(maxItems) * 4, 4);
  scratchKeys_ = Buffer(scheduler.device(), "radix sort scratch keys", itemBytes);
  scratchValues_ = Buffer(scheduler.device(), "radix sort scratch values", itemBytes);
  tileCounts_ = Buffer(scheduler.device(), "radix sort tile counts", VkDeviceSize(kRadixDigits) * maxTiles_ * 4);
  countKernel_ = scheduler.library().kernel("primitives/radix_count.comp");
  scatterKernel_ = scheduler.library().kernel("primitives/radix_scatter.comp");
}

uint32_t RadixSort::passCount(uint32_t keyBits) {
  if (keyBits < 1 || keyBits > 32)
    throw Error("radix sort by " + std::to_string(keyBits) + " key bits: keyBits must be 1..32");
  uint32_t passes = (keyBits + kRadixMaxDigitBits - 1) / kRadixMaxDigitBits;
  return passes + (passes & 1u);  // even, so the result ends in the caller's buffers
}

void RadixSort::record(const BufferRange& keys, const BufferRange& values, uint32_t count, uint32_t keyBits) {
  const uint32_t passes = passCount(keyBits);
  if (count > maxItems_)
    throw Error("radix sort of " + std::to_string(count) + " items: this RadixSort was made for at most " +
                std::to_string(maxItems_));
  const VkDeviceSize bytes = VkDeviceSize(count) * 4;
  if (keys.size < bytes || values.size < bytes)
    throw Error("radix sort of " + std::to_string(count) + " items: range '" +
                std::string(keys.size < bytes ? keys.name : values.name) + "' holds fewer");
  if (count == 0) return;

  const uint32_t numTiles = tilesFor(count);
  const BufferRange userKeys = prefix(keys, bytes), userValues = prefix(values, bytes);
  const BufferRange tempKeys = scratchKeys_.range(0, bytes), tempValues = scratchValues_.range(0, bytes);
  const BufferRange counts = tileCounts_.range(0, VkDeviceSize(kRadixDigits) * numTiles * 4);

  uint32_t shift = 0;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    // Spread the bits evenly: with 27 bits, 8 passes of 3 or 4; with 1 bit, 1 and 0 (a copy).
    const uint32_t bits = keyBits / passes + (pass < keyBits % passes ? 1u : 0u);
    const bool fromUser = pass % 2 == 0;
    const BufferRange& inKeys = fromUser ? userKeys : tempKeys;
    const BufferRange& inValues = fromUser ? userValues : tempValues;
    const BufferRange& outKeys = fromUser ? tempKeys : userKeys;
    const BufferRange& outValues = fromUser ? tempValues : userValues;
    gpu::RadixPassPush push{inKeys.address, inValues.address, outKeys.address, outValues.address, counts.address,
                            count,          numTiles,         bits ? shift : 0, (1u << bits) - 1u};
    scheduler_.dispatch({"radix sort count", countKernel_.get(), {numTiles, 1, 1}, push, {reads(inKeys), writes(counts)}});
    scan_.record(counts, counts, kRadixDigits * numTiles);
    scheduler_.dispatch({"radix sort scatter", scatterKernel_.get(), {numTiles, 1, 1}, push,
                         {reads(inKeys), reads(inValues), reads(counts), writes(outKeys), writes(outValues)}});
    shift += bits;
  }
}

}  // namespace voxen

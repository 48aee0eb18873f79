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
  scratchPairs_ = Buffer(scheduler.device(), "radix sort scratch pairs", 2 * itemBytes);
  scratchPairs2_ = Buffer(scheduler.device(), "radix sort scratch pairs 2", 2 * itemBytes);
  tileCounts_ = Buffer(scheduler.device(), "radix sort tile counts", VkDeviceSize(kRadixDigits) * maxTiles_ * 4);
  for (uint32_t in = 0; in < 2; ++in) {
    countKernels_[in] = scheduler.library().kernel("primitives/radix_count.comp", {{}, {{gpu::kRadixInPairsId, in}}});
    for (uint32_t out = 0; out < 2; ++out)
      scatterKernels_[in][out] = scheduler.library().kernel(
          "primitives/radix_scatter.comp", {{}, {{gpu::kRadixInPairsId, in}, {gpu::kRadixOutPairsId, out}}});
  }
}

uint32_t RadixSort::passCount(uint32_t keyBits) {
  if (keyBits < 1 || keyBits > 32)
    throw Error("radix sort by " + std::to_string(keyBits) + " key bits: keyBits must be 1..32");
  // At least 2: one pass cannot sort in place.
  return std::max((keyBits + kRadixMaxDigitBits - 1) / kRadixMaxDigitBits, 2u);
}

void RadixSort::record(const BufferRange& keys, const BufferRange& values, uint32_t count, uint32_t keyBits,
                       const BufferRange* countWord) {
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
  const BufferRange userKeys = keys.first(bytes), userValues = values.first(bytes);
  const BufferRange temp = scratchPairs_.range(0, 2 * bytes), temp2 = scratchPairs2_.range(0, 2 * bytes);

  // Ping-pong between the caller's buffers and scratch (interleaved pairs); an odd pass count
  // starts with user -> scratch -> scratch 2 -> user, so the last pass writes the caller's buffers.
  enum Where { kUser, kTemp, kTemp2 };
  uint32_t shift = 0;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    // Spread the bits evenly: with 27 bits, 4 passes of 7 or 6; with 1 bit, 1 and 0 (a copy).
    const uint32_t bits = keyBits / passes + (pass < keyBits % passes ? 1u : 0u);
    const uint32_t digits = 1u << bits;
    Where in, out;
    if (passes % 2 == 1 && pass < 3) {
      in = pass == 0 ? kUser : pass == 1 ? kTemp : kTemp2;
      out = pass == 0 ? kTemp : pass == 1 ? kTemp2 : kUser;
    } else {
      const uint32_t k = passes % 2 == 1 ? pass - 3 : pass;
      in = k % 2 == 0 ? kUser : kTemp;
      out = k % 2 == 0 ? kTemp : kUser;
    }
    const BufferRange& inKeys = in == kUser ? userKeys : in == kTemp ? temp : temp2;
    const BufferRange& inValues = in == kUser ? userValues : inKeys;
    const BufferRange& outKeys = out == kUser ? userKeys : out == kTemp ? temp : temp2;
    const BufferRange& outValues = out == kUser ? userValues : outKeys;
    const uint32_t inPairs = in != kUser, outPairs = out != kUser;
    const BufferRange counts = tileCounts_.range(0, VkDeviceSize(digits) * numTiles * 4);
    gpu::RadixPassPush push{inKeys.address, inValues.address, outKeys.address, outValues.address,
                            counts.address, count,            numTiles,         bits ? shift : 0,
                            digits - 1u,      countWord ? countWord->address : 0};
    std::vector<BufferUse> countAccess{reads(inKeys), writes(counts)};
    if (countWord) countAccess.push_back(reads(*countWord));
    scheduler_.dispatch({"radix sort count", countKernels_[inPairs].get(), {numTiles, 1, 1}, push, countAccess});
    scan_.record(counts, counts, digits * numTiles);
    std::vector<BufferUse> access{reads(inKeys), reads(counts), writes(outKeys)};
    if (!inPairs) access.push_back(reads(inValues));
    if (!outPairs) access.push_back(writes(outValues));
    if (countWord) access.push_back(reads(*countWord));
    scheduler_.dispatch({"radix sort scatter", scatterKernels_[inPairs][outPairs].get(), {numTiles, 1, 1}, push, access});
    shift += bits;
  }
}

}  // namespace voxen

namespace voxen {

RadixSort64::RadixSort64(Scheduler& scheduler, uint32_t maxItems) : scheduler_(scheduler), sort_(scheduler, maxItems) {
  const VkDeviceSize items = std::max<VkDeviceSize>(maxItems, 1);
  half_ = Buffer(scheduler.device(), "radix sort 64 key halves", items * 4);
  permutation_ = Buffer(scheduler.device(), "radix sort 64 permutation", items * 4);
  keyCopy_ = Buffer(scheduler.device(), "radix sort 64 key copy", items * 8);
  valueCopy_ = Buffer(scheduler.device(), "radix sort 64 value copy", items * 4);
  for (uint32_t mode = 0; mode < 3; ++mode)
    kernels_[mode] = scheduler.library().kernel("primitives/radix_gather64.comp", {{}, {{gpu::kRadixGatherModeId, mode}}});
}

void RadixSort64::record(const BufferRange& keys, const BufferRange& values, uint32_t count, uint32_t keyBits) {
  if (keyBits < 1 || keyBits > 64)
    throw Error("radix sort of 64-bit keys by " + std::to_string(keyBits) + " key bits: keyBits must be 1..64");
  if (count > sort_.maxItems())
    throw Error("radix sort of " + std::to_string(count) + " items: this RadixSort64 was made for at most " +
                std::to_string(sort_.maxItems()));
  if (keys.size < VkDeviceSize(count) * 8 || values.size < VkDeviceSize(count) * 4)
    throw Error("radix sort of " + std::to_string(count) + " items: range '" +
                std::string(keys.size < VkDeviceSize(count) * 8 ? keys.name : values.name) + "' holds fewer");
  if (keys.address % 8) throw Error("radix sort of 64-bit keys: range '" + std::string(keys.name) + "' is not 8-byte aligned");
  if (count == 0) return;
  const BufferRange userKeys = keys.first(VkDeviceSize(count) * 8), userValues = values.first(VkDeviceSize(count) * 4);
  const BufferRange half = half_.range(0, VkDeviceSize(count) * 4), perm = permutation_.range(0, VkDeviceSize(count) * 4);
  const BufferRange K = keyCopy_.range(0, VkDeviceSize(count) * 8), V = valueCopy_.range(0, VkDeviceSize(count) * 4);
  const gpu::RadixGather64Push push{userKeys.address, userValues.address, half.address, perm.address, K.address, V.address, count};
  scheduler_.dispatchThreads({"radix sort 64 split", kernels_[0].get(), {}, push,
                              {reads(userKeys), reads(userValues), writes(half), writes(perm), writes(K), writes(V)}},
                             count);
  sort_.record(half, perm, count, std::min(keyBits, 32u));
  if (keyBits > 32) {
    scheduler_.dispatchThreads({"radix sort 64 high half", kernels_[1].get(), {}, push, {reads(K), reads(perm), writes(half)}}, count);
    sort_.record(half, perm, count, keyBits - 32);
  }
  scheduler_.dispatchThreads({"radix sort 64 gather", kernels_[2].get(), {}, push,
                              {reads(K), reads(V), reads(perm), writes(userKeys), writes(userValues)}},
                             count);
}

}  // namespace voxen

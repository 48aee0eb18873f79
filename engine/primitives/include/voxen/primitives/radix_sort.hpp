#pragma once
// A stable GPU radix sort of (uint32 key, uint32 value) pairs (shaders/primitives/radix_*.comp).
//
// LSD radix sort with digits of at most 8 bits. Each digit pass runs three dispatches: a
// per-tile digit histogram (tiles of 4096 items), an exclusive scan of the histograms in
// digit-major order (ExclusiveScan), and a stable scatter in which each tile ranks its items
// in input order. Passes ping-pong between the caller's buffers and internal scratch of
// interleaved pairs (an odd pass count goes through a second scratch once) so the last pass
// writes the caller's buffers.
#include <cstdint>
#include <memory>

#include "voxen/host/buffer.hpp"
#include "voxen/primitives/exclusive_scan.hpp"

namespace voxen {

class Kernel;
class Scheduler;

class RadixSort {
 public:
  static constexpr uint32_t kMaxItemsLimit = 1u << 26;  // 4 KiB tiles: 16,384 workgroups per pass

  // Allocates scratch (two uint32 arrays of maxItems and the tile histograms) for sorts
  // of up to maxItems pairs; maxItems at most kMaxItemsLimit.
  RadixSort(Scheduler& scheduler, uint32_t maxItems);

  // Records into the scheduler's current batch (does not submit) a STABLE sort of `count`
  // (key, value) pairs by the low `keyBits` bits of the key (1..32): pairs with equal low
  // bits keep their input order. Key bits at and above keyBits are ignored for the order
  // and carried along unchanged. keys and values are uint32 arrays of at least `count`
  // items, which must not overlap; the sorted pairs end in the same ranges (in place).
  // count 0 records nothing. Throws voxen::Error when count > maxItems, keyBits is outside
  // 1..32 or a range is too small.
  //
  // Passes: ceil(keyBits / 8), at least 2, the key bits spread evenly over them.
  //
  // countWord (optional): one uint on the device, written by an earlier pass, that holds the
  // number of pairs to sort; `count` is then its upper bound (the dispatches are sized for
  // it, and the tiles past the device's count only write empty histograms).
  void record(const BufferRange& keys, const BufferRange& values, uint32_t count, uint32_t keyBits,
              const BufferRange* countWord = nullptr);

  // The number of digit passes record() runs for keyBits (each is three dispatches).
  static uint32_t passCount(uint32_t keyBits);
  uint32_t maxItems() const { return maxItems_; }

 private:
  Scheduler& scheduler_;
  uint32_t maxItems_;
  uint32_t maxTiles_;
  Buffer scratchPairs_, scratchPairs2_, tileCounts_;  // scratch: interleaved (key, value) pairs
  std::shared_ptr<Kernel> countKernels_[2], scatterKernels_[2][2];  // [input is pairs][output is pairs]
  ExclusiveScan scan_;
};

// A stable GPU radix sort of (uint64 key, uint32 value) pairs, built on RadixSort: the
// permutation is sorted by the low 32 key bits, then (when keyBits > 32) stably by the high
// bits, and the pairs are gathered through it (shaders/primitives/radix_gather64.comp).
// Scratch: 20 bytes per item besides the inner RadixSort's.
class RadixSort64 {
 public:
  static constexpr uint32_t kMaxItemsLimit = RadixSort::kMaxItemsLimit;

  RadixSort64(Scheduler& scheduler, uint32_t maxItems);

  // Records a STABLE sort of `count` pairs by the low `keyBits` bits (1..64) of the uint64
  // keys, in place; bits above keyBits are carried along. keys holds uint64 (8-byte aligned
  // address), values uint32, at least `count` each. count 0 records nothing. Throws
  // voxen::Error when count > maxItems, keyBits is outside 1..64 or a range is too small.
  void record(const BufferRange& keys, const BufferRange& values, uint32_t count, uint32_t keyBits);
  uint32_t maxItems() const { return sort_.maxItems(); }

 private:
  Scheduler& scheduler_;
  RadixSort sort_;
  Buffer half_, permutation_, keyCopy_, valueCopy_;
  std::shared_ptr<Kernel> kernels_[3];  // split, high half, gather
};

}  // namespace voxen

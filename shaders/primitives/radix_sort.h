// Push constants and constants of shaders/primitives/*.comp (the GPU radix sort and the
// exclusive scan, engine/primitives), one definition for the shaders and for C++
// ("voxen/gpu/primitives/radix_sort.h").
#ifndef VOXEN_PRIMITIVES_RADIX_SORT_H
#define VOXEN_PRIMITIVES_RADIX_SORT_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// Radix sort tiles: a workgroup of kRadixThreads invocations, each holding
// kRadixItemsPerThread consecutive items, sorts kRadixTileItems items per pass. Digits have
// up to kRadixMaxDigitBits bits; a tile ranks them in shared memory with 16-bit counters
// packed two digits per uint: counts[kRadixCountRows][kRadixThreads], 8 KiB.
VOXEN_CONST(uint, kRadixThreads, 16u)
VOXEN_CONST(uint, kRadixItemsPerThread, 256u)
VOXEN_CONST(uint, kRadixTileItems, 4096u)
VOXEN_CONST(uint, kRadixDigits, 256u)     // 8-bit digits at most
VOXEN_CONST(uint, kRadixMaxDigitBits, 8u)
VOXEN_CONST(uint, kRadixCountRows, 128u)  // kRadixDigits / 2: two 16-bit counters per uint

// The exclusive scan: one workgroup of kScanThreads invocations walking the array in
// chunks of kScanThreads * kScanItemsPerThread items.
VOXEN_CONST(uint, kScanThreads, 256u)
VOXEN_CONST(uint, kScanItemsPerThread, 16u)

// primitives/radix_count.comp and primitives/radix_scatter.comp, one digit pass:
//   digit(key) = (key >> shift) & digitMask
//   count:   tileCounts[digit * numTiles + tile] = items of the tile with that digit, for
//            digit <= digitMask (only those entries are scanned and read)
//   scatter: keysOut/valuesOut[tileCounts[digit * numTiles + tile] + rank in tile] = item,
//            after tileCounts was scanned (exclusive, in that digit-major order)
// Internal scratch holds interleaved pairs (uvec2(key, value) per item at keysIn/keysOut,
// valuesIn/valuesOut unused): one 64-bit store per item instead of two. The shaders are
// specialised on it: constant_id kRadixInPairsId / kRadixOutPairsId (bool).
VOXEN_CONST(uint, kRadixInPairsId, 0u)
VOXEN_CONST(uint, kRadixOutPairsId, 1u)
struct RadixPassPush {
  VOXEN_ADDRESS keysIn;      // uint per item, or uvec2 (key, value) per item with in-pairs
  VOXEN_ADDRESS valuesIn;    // uint per item (scatter only, not with in-pairs)
  VOXEN_ADDRESS keysOut;     // uint per item, or uvec2 (key, value) with out-pairs (scatter only)
  VOXEN_ADDRESS valuesOut;   // uint per item (scatter only, not with out-pairs)
  VOXEN_ADDRESS tileCounts;  // uint per (digit, tile): kRadixDigits * numTiles
  uint count;
  uint numTiles;
  uint shift;
  uint digitMask;            // (1 << bits) - 1, bits 0..8; 0 makes the pass a stable copy
  VOXEN_ADDRESS countWord;   // 0, or one uint on the device: the items to sort are min(it, count),
                             // and the tiles past them only write empty histograms
};
VOXEN_SHARED_ASSERT(sizeof(RadixPassPush) == 64 && offsetof(RadixPassPush, count) == 40 &&
                    offsetof(RadixPassPush, digitMask) == 52 && offsetof(RadixPassPush, countWord) == 56)

// primitives/radix_gather64.comp, the 64-bit key sort (RadixSort64), one item per invocation:
//   kRadixGatherModeId 0 (split):   lo[i] = low half of keys[i]; idx[i] = i; K[i] = keys[i]; V[i] = values[i]
//   kRadixGatherModeId 1 (high):    lo[j] = high half of K[idx[j]]
//   kRadixGatherModeId 2 (gather):  keys[j] = K[idx[j]]; values[j] = V[idx[j]]
VOXEN_CONST(uint, kRadixGatherModeId, 0u)
struct RadixGather64Push {
  VOXEN_ADDRESS keys;    // uint64_t per item (the caller's)
  VOXEN_ADDRESS values;  // uint per item (the caller's)
  VOXEN_ADDRESS lo;      // uint per item: the half of the key being sorted
  VOXEN_ADDRESS idx;     // uint per item: the permutation
  VOXEN_ADDRESS K;       // uint64_t per item: copy of the keys
  VOXEN_ADDRESS V;       // uint per item: copy of the values
  uint count;
};
VOXEN_SHARED_ASSERT(offsetof(RadixGather64Push, count) == 48)

// primitives/exclusive_scan.comp: dst[i] = src[0] + ... + src[i - 1] (uint, wrapping), in
// place when src == dst; total[0] = the sum of all items when total != 0.
struct ExclusiveScanPush {
  VOXEN_ADDRESS src;    // uint per item
  VOXEN_ADDRESS dst;    // uint per item
  VOXEN_ADDRESS total;  // one uint, or 0 for none
  uint count;
};
VOXEN_SHARED_ASSERT(offsetof(ExclusiveScanPush, count) == 24)

VOXEN_SHARED_END

#endif

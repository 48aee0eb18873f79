#version 460
// One digit pass of the radix sort (engine/primitives/radix_sort.cpp), step 3 of 3: the
// stable scatter of one tile. tileCounts holds, after the exclusive scan of step 2, where
// the tile's items of each digit start in the output.
//
// Stability: each invocation owns kRadixItemsPerThread consecutive items and ranks them in
// order within its own column of counts[digit / 2][thread] (16-bit counters, two digits per
// uint); the exclusive scan of each row over the threads (both halves at once: a digit's
// count in a tile is at most kRadixTileItems < 65536) then places, within a digit, thread
// t's items after those of threads 0..t-1, so equal digits leave the tile in input order,
// and tiles in tile order.
//
// The loops over a thread's items stay loops ([[dont_unroll]]): fully unrolled over 256 items,
// lavapipe's LLVM took about two minutes to compile the three variants and ran them slower.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "radix_sort.h"

layout(local_size_x = 16) in;  // kRadixThreads

layout(push_constant) uniform Push { RadixPassPush pc; };
layout(constant_id = 0) const bool kInPairs = false;   // kRadixInPairsId
layout(constant_id = 1) const bool kOutPairs = false;  // kRadixOutPairsId

const uint kRowsPerThread = kRadixCountRows / kRadixThreads;        // 8
const uint kDigitsPerThread = kRadixDigits / kRadixThreads;         // 16

shared uint counts[kRadixCountRows * kRadixThreads];  // [digit / 2][thread], 8 KiB
shared uint digitBase[kRadixDigits];                  // output start of the tile's digit

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupID.x;
  const uint count = pc.countWord != 0ul ? min(UintArray(pc.countWord).v[0], pc.count) : pc.count;
  const uint shift = pc.shift, digitMask = pc.digitMask, numTiles = pc.numTiles;
  if (tile * kRadixTileItems >= count && tile > 0u) return;  // past a device-side count: nothing to place

  [[dont_unroll]] for (uint r = 0u; r < kRadixCountRows; ++r) counts[r * kRadixThreads + tid] = 0u;

  // Load this invocation's items and rank them within its column (own column only: no barrier).
  const uint first = tile * kRadixTileItems + tid * kRadixItemsPerThread;
  // Values are read only when stored (fewer live registers across the ranking).
  uint key[kRadixItemsPerThread], rank[kRadixItemsPerThread];
  if (kInPairs) {
    Uvec2Array pairs = Uvec2Array(pc.keysIn);
    [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) key[j] = first + j < count ? pairs.v[first + j].x : 0u;
  } else if (first + kRadixItemsPerThread <= count && (pc.keysIn & 15ul) == 0ul) {
    Uvec4Array keys4 = Uvec4Array(pc.keysIn);
    [[dont_unroll]] for (uint q = 0u; q < kRadixItemsPerThread / 4u; ++q) {
      const uvec4 k = keys4.v[first / 4u + q];
      [[unroll]] for (uint c = 0u; c < 4u; ++c) key[4u * q + c] = k[c];
    }
  } else {
    UintArray keysIn = UintArray(pc.keysIn);
    [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) key[j] = first + j < count ? keysIn.v[first + j] : 0u;
  }
  [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
    // Items past count rank too (as digit of key 0) but are never stored: they follow every
    // real item of this column, so they do not move a real item's rank.
    const uint d = (key[j] >> shift) & digitMask;
    const uint slot = (d >> 1u) * kRadixThreads + tid, hi = (d & 1u) << 4u;
    const uint c = counts[slot];
    rank[j] = (c >> hi) & 0xffffu;
    counts[slot] = c + (1u << hi);
  }
  UintArray tileCounts = UintArray(pc.tileCounts);
  [[unroll]] for (uint e = 0u; e < kDigitsPerThread; ++e) {
    const uint d = tid * kDigitsPerThread + e;
    if (d <= digitMask) digitBase[d] = tileCounts.v[d * numTiles + tile];
  }
  barrier();

  // Exclusive scan of each row over the threads, both 16-bit halves at once.
  [[dont_unroll]] for (uint rr = 0u; rr < kRowsPerThread; ++rr) {
    const uint row = tid * kRowsPerThread + rr;
    if (2u * row <= digitMask) {
      uint sum = 0u;
      [[unroll]] for (uint t = 0u; t < kRadixThreads; ++t) {
        const uint c = counts[row * kRadixThreads + t];
        counts[row * kRadixThreads + t] = sum;
        sum += c;
      }
    }
  }
  barrier();

  UintArray valuesIn = UintArray(pc.valuesIn);
  Uvec2Array pairsIn = Uvec2Array(pc.keysIn);
  UintArray keysOut = UintArray(pc.keysOut);
  UintArray valuesOut = UintArray(pc.valuesOut);
  Uint64Array pairsOut = Uint64Array(pc.keysOut);
  [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
    if (first + j < count) {
      const uint d = (key[j] >> shift) & digitMask;
      const uint before = (counts[(d >> 1u) * kRadixThreads + tid] >> ((d & 1u) << 4u)) & 0xffffu;
      const uint position = digitBase[d] + before + rank[j];
      const uint value = kInPairs ? pairsIn.v[first + j].y : valuesIn.v[first + j];
      if (kOutPairs) {
        pairsOut.v[position] = packUint2x32(uvec2(key[j], value));
      } else {
        keysOut.v[position] = key[j];
        valuesOut.v[position] = value;
      }
    }
  }
}

#version 460
// One digit pass of the radix sort (engine/primitives/radix_sort.cpp), step 1 of 3: the
// digit histogram of each tile of kRadixTileItems items, written digit-major:
// tileCounts[digit * numTiles + tile] for digit <= digitMask. One workgroup per tile, the
// same tiles as radix_scatter.comp. Each invocation counts its items into its own column
// of counts[digit / 2][thread] (16-bit counters, two digits per uint, no atomics: shared
// atomics measured slower on lavapipe), then the columns are summed per digit pair.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "radix_sort.h"

layout(local_size_x = 16) in;  // kRadixThreads

layout(push_constant) uniform Push { RadixPassPush pc; };
layout(constant_id = 0) const bool kInPairs = false;  // kRadixInPairsId

const uint kRowsPerThread = kRadixCountRows / kRadixThreads;  // 8

shared uint counts[kRadixCountRows * kRadixThreads];  // [digit / 2][thread], 8 KiB

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupID.x;
  const uint count = pc.countWord != 0ul ? min(UintArray(pc.countWord).v[0], pc.count) : pc.count;
  const uint shift = pc.shift, digitMask = pc.digitMask, numTiles = pc.numTiles;
  if (tile * kRadixTileItems >= count && tile > 0u) {  // past a device-side count: an empty histogram
    UintArray emptyCounts = UintArray(pc.tileCounts);
    [[dont_unroll]] for (uint d = tid; d <= digitMask; d += kRadixThreads) emptyCounts.v[d * numTiles + tile] = 0u;
    return;
  }
  [[dont_unroll]] for (uint r = 0u; r < kRadixCountRows; ++r) counts[r * kRadixThreads + tid] = 0u;
  const uint first = tile * kRadixTileItems + tid * kRadixItemsPerThread;
  if (kInPairs) {
    Uvec2Array pairs = Uvec2Array(pc.keysIn);
    [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
      const uint i = first + j;
      if (i < count) {
        const uint d = (pairs.v[i].x >> shift) & digitMask;
        counts[(d >> 1u) * kRadixThreads + tid] += 1u << ((d & 1u) << 4u);
      }
    }
  } else if (first + kRadixItemsPerThread <= count && (pc.keysIn & 15ul) == 0ul) {
    Uvec4Array keys4 = Uvec4Array(pc.keysIn);
    [[dont_unroll]] for (uint q = 0u; q < kRadixItemsPerThread / 4u; ++q) {
      const uvec4 k = keys4.v[first / 4u + q];
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        const uint d = (k[c] >> shift) & digitMask;
        counts[(d >> 1u) * kRadixThreads + tid] += 1u << ((d & 1u) << 4u);
      }
    }
  } else {
    UintArray keys = UintArray(pc.keysIn);
    [[dont_unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
      const uint i = first + j;
      if (i < count) {
        const uint d = (keys.v[i] >> shift) & digitMask;
        counts[(d >> 1u) * kRadixThreads + tid] += 1u << ((d & 1u) << 4u);
      }
    }
  }
  barrier();
  // Rows tid * 8 .. tid * 8 + 7 (digits tid * 16 .. tid * 16 + 15), summed over the threads.
  UintArray tileCounts = UintArray(pc.tileCounts);
  [[dont_unroll]] for (uint rr = 0u; rr < kRowsPerThread; ++rr) {
    const uint row = tid * kRowsPerThread + rr;
    if (2u * row <= digitMask) {
      uint sum = 0u;
      [[unroll]] for (uint t = 0u; t < kRadixThreads; ++t) sum += counts[row * kRadixThreads + t];
      tileCounts.v[(2u * row) * numTiles + tile] = sum & 0xffffu;
      if (2u * row + 1u <= digitMask) tileCounts.v[(2u * row + 1u) * numTiles + tile] = sum >> 16u;
    }
  }
}

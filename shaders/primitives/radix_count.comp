#version 460
// One digit pass of the radix sort (engine/primitives/radix_sort.cpp), step 1 of 3: the
// digit histogram of each tile of kRadixTileItems items, written digit-major:
// tileCounts[digit * numTiles + tile]. One workgroup per tile. Each invocation counts its
// items into its own column of counts[digit][thread] (no atomics), then the columns are
// summed per digit.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "radix_sort.h"

layout(local_size_x = 128) in;  // kRadixThreads

layout(push_constant) uniform Push { RadixPassPush pc; };

const uint kEntriesPerThread = kRadixDigits;  // kRadixDigits * kRadixThreads entries over kRadixThreads
const uint kThreadsPerDigit = kRadixThreads / kEntriesPerThread;  // 8

shared uint counts[kRadixDigits * kRadixThreads];  // [digit][thread], 8 KiB
shared uint partial[kRadixThreads];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupID.x;
  const uint count = pc.count, shift = pc.shift, digitMask = pc.digitMask, numTiles = pc.numTiles;
  [[unroll]] for (uint d = 0u; d < kRadixDigits; ++d) counts[d * kRadixThreads + tid] = 0u;
  UintArray keys = UintArray(pc.keysIn);
  const uint first = tile * kRadixTileItems + tid * kRadixItemsPerThread;
  [[unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
    const uint i = first + j;
    if (i < count) counts[((keys.v[i] >> shift) & digitMask) * kRadixThreads + tid] += 1u;
  }
  barrier();
  // Entries tid * 16 .. tid * 16 + 15 all belong to digit tid / 8.
  uint sum = 0u;
  [[unroll]] for (uint e = 0u; e < kEntriesPerThread; ++e) sum += counts[tid * kEntriesPerThread + e];
  partial[tid] = sum;
  barrier();
  if (tid < kRadixDigits) {
    uint total = 0u;
    [[unroll]] for (uint t = 0u; t < kThreadsPerDigit; ++t) total += partial[tid * kThreadsPerDigit + t];
    UintArray(pc.tileCounts).v[tid * numTiles + tile] = total;
  }
}

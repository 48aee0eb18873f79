#version 460
// One digit pass of the radix sort (engine/primitives/radix_sort.cpp), step 3 of 3: the
// stable scatter of one tile. tileCounts holds, after the exclusive scan of step 2, where
// the tile's items of each digit start in the output.
//
// Stability: each invocation owns kRadixItemsPerThread consecutive items and ranks them in
// order within its own column of counts[digit][thread]; the exclusive scan of counts in
// digit-major order then places, within a digit, thread t's items after those of threads
// 0..t-1, so equal digits leave the tile in input order, and tiles in tile order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "radix_sort.h"

layout(local_size_x = 128) in;  // kRadixThreads

layout(push_constant) uniform Push { RadixPassPush pc; };

const uint kEntriesPerThread = kRadixDigits * kRadixThreads / kRadixThreads;  // 16

shared uint counts[kRadixDigits * kRadixThreads];  // [digit][thread], 8 KiB
shared uint threadSums[kRadixThreads];
shared uint digitBase[kRadixDigits];  // output start of the tile's digit minus its start in the tile

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupID.x;
  const uint count = pc.count, shift = pc.shift, digitMask = pc.digitMask, numTiles = pc.numTiles;

  [[unroll]] for (uint d = 0u; d < kRadixDigits; ++d) counts[d * kRadixThreads + tid] = 0u;

  // Load this invocation's items and rank them within its column (own column only: no barrier).
  UintArray keysIn = UintArray(pc.keysIn);
  UintArray valuesIn = UintArray(pc.valuesIn);
  const uint first = tile * kRadixTileItems + tid * kRadixItemsPerThread;
  uint key[kRadixItemsPerThread], value[kRadixItemsPerThread], slot[kRadixItemsPerThread],
      rank[kRadixItemsPerThread];
  [[unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
    const uint i = first + j;
    key[j] = 0u, value[j] = 0u, slot[j] = 0u, rank[j] = 0u;
    if (i < count) {
      key[j] = keysIn.v[i];
      value[j] = valuesIn.v[i];
      slot[j] = ((key[j] >> shift) & digitMask) * kRadixThreads + tid;
      rank[j] = counts[slot[j]];
      counts[slot[j]] = rank[j] + 1u;
    }
  }
  barrier();

  // Exclusive scan of counts in digit-major order: each invocation scans 16 consecutive
  // entries, one invocation scans the 128 partial sums, each adds its partial's offset.
  const uint base = tid * kEntriesPerThread;
  uint sum = 0u;
  [[unroll]] for (uint e = 0u; e < kEntriesPerThread; ++e) {
    const uint c = counts[base + e];
    counts[base + e] = sum;
    sum += c;
  }
  threadSums[tid] = sum;
  barrier();
  if (tid == 0u) {
    uint running = 0u;
    for (uint t = 0u; t < kRadixThreads; ++t) {
      const uint c = threadSums[t];
      threadSums[t] = running;
      running += c;
    }
  }
  barrier();
  const uint offset = threadSums[tid];
  [[unroll]] for (uint e = 0u; e < kEntriesPerThread; ++e) counts[base + e] += offset;
  barrier();
  if (tid < kRadixDigits)
    digitBase[tid] = UintArray(pc.tileCounts).v[tid * numTiles + tile] - counts[tid * kRadixThreads];
  barrier();

  UintArray keysOut = UintArray(pc.keysOut);
  UintArray valuesOut = UintArray(pc.valuesOut);
  [[unroll]] for (uint j = 0u; j < kRadixItemsPerThread; ++j) {
    if (first + j < count) {
      const uint position = digitBase[slot[j] / kRadixThreads] + counts[slot[j]] + rank[j];
      keysOut.v[position] = key[j];
      valuesOut.v[position] = value[j];
    }
  }
}

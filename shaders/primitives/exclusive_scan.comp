#version 460
// Exclusive prefix sum of a uint array (engine/primitives/exclusive_scan.cpp):
// dst[i] = src[0] + ... + src[i - 1], wrapping; in place when src == dst; the sum of all items
// into total[0] when total != 0. One workgroup walks the array in chunks of
// kScanThreads * kScanItemsPerThread items, carrying the running sum; each invocation
// owns kScanItemsPerThread consecutive items of a chunk, so in place is safe. Loop
// iterations per invocation grow with count / 4096 (lavapipe's cap: the host bounds count).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "radix_sort.h"

layout(local_size_x = 256) in;  // kScanThreads

layout(push_constant) uniform Push { ExclusiveScanPush pc; };

shared uint sums[2][kScanThreads];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint count = pc.count;
  UintArray src = UintArray(pc.src);
  UintArray dst = UintArray(pc.dst);
  const uint chunk = kScanThreads * kScanItemsPerThread;
  uint carry = 0u;  // the same in every invocation
  for (uint chunkBase = 0u; chunkBase < count; chunkBase += chunk) {
    const uint first = chunkBase + tid * kScanItemsPerThread;
    uint prefix[kScanItemsPerThread];
    uint sum = 0u;
    [[unroll]] for (uint j = 0u; j < kScanItemsPerThread; ++j) {
      const uint i = first + j;
      prefix[j] = sum;
      sum += i < count ? src.v[i] : 0u;
    }
    // Inclusive scan of the invocations' sums (Hillis-Steele, double-buffered).
    sums[0][tid] = sum;
    barrier();
    uint from = 0u;
    [[unroll]] for (uint step = 1u; step < kScanThreads; step <<= 1u) {
      uint v = sums[from][tid];
      if (tid >= step) v += sums[from][tid - step];
      sums[1u - from][tid] = v;
      from = 1u - from;
      barrier();
    }
    const uint before = carry + sums[from][tid] - sum;
    const uint chunkTotal = sums[from][kScanThreads - 1u];
    [[unroll]] for (uint j = 0u; j < kScanItemsPerThread; ++j) {
      const uint i = first + j;
      if (i < count) dst.v[i] = before + prefix[j];
    }
    carry += chunkTotal;
    barrier();  // every invocation read sums before the next chunk writes them
  }
  if (tid == 0u && pc.total != 0ul) UintArray(pc.total).v[0] = carry;
}

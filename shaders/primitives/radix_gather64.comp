#version 460
// The 64-bit key sort (engine/primitives/radix_sort.cpp, RadixSort64): splits the keys into
// the 32-bit half being sorted and a permutation, and gathers through the permutation; see
// RadixGather64Push in radix_sort.h. One item per invocation.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "radix_sort.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { RadixGather64Push pc; };
layout(constant_id = 0) const uint kMode = 0u;  // kRadixGatherModeId

void main() {
  const uint i = voxenThreadIndex();
  if (i >= pc.count) return;
  UintArray lo = UintArray(pc.lo);
  UintArray idx = UintArray(pc.idx);
  Uint64Array K = Uint64Array(pc.K);
  UintArray V = UintArray(pc.V);
  if (kMode == 0u) {
    const uint64_t key = Uint64Array(pc.keys).v[i];
    lo.v[i] = uint(key);
    idx.v[i] = i;
    K.v[i] = key;
    V.v[i] = UintArray(pc.values).v[i];
  } else if (kMode == 1u) {
    lo.v[i] = uint(K.v[idx.v[i]] >> 32);
  } else {
    const uint from = idx.v[i];
    Uint64Array(pc.keys).v[i] = K.v[from];
    UintArray(pc.values).v[i] = V.v[from];
  }
}

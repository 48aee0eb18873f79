#version 460
// Sums src[] with a bounded number of iterations per invocation (common/work_range.glsl):
// each invocation adds its slice into a 64-bit total, so any amount of input is summed
// exactly as long as the host launches total / perInvocation invocations.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "selftest_push.h"
#include "../common/dispatch.glsl"
#include "../common/work_range.glsl"

layout(local_size_x = 64) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { BoundedSumPush pc; };

void main() {
  WorkRange r = workRange(voxenThreadIndex(), pc.perInvocation, pc.count);
  uint64_t sum = 0ul;
  UintArray src = UintArray(pc.src);
  for (uint i = r.begin; i < r.end; ++i) sum += uint64_t(src.v[i]);
  if (r.end > r.begin) atomicAdd(Uint64Array(pc.total).v[0], sum);
}

#version 460
// total += sum of uint(y[i]), with a 32-bit subgroup reduction and one 64-bit atomic add
// per subgroup: exercises subgroup arithmetic and 64-bit buffer atomics. Inputs stay below
// 2^25 so that a subgroup's partial sum (up to 64 lanes) cannot overflow 32 bits.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "../common/buffers.glsl"
#include "selftest_push.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { SumU64Push pc; };

void main() {
  uint i = voxenThreadIndex();
  uint value = i < pc.count ? uint(FloatArray(pc.y).v[i]) : 0u;
  uint sum = subgroupAdd(value);
  if (subgroupElect()) atomicAdd(Uint64Array(pc.total).v[0], uint64_t(sum));
}

#version 460
// dst[i] = src[i ^ 1] within each subgroup via subgroupShuffleXor: checks shuffles work
// for whatever subgroup size the device has (8 on lavapipe, 32 on NVIDIA).
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "../common/buffers.glsl"
#include "selftest_push.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { ShuffleXorPush pc; };

void main() {
  uint i = voxenThreadIndex();
  uint value = i < pc.count ? UintArray(pc.src).v[i] : 0u;
  uint other = subgroupShuffleXor(value, 1u);
  if (i < pc.count) UintArray(pc.dst).v[i] = other;
}

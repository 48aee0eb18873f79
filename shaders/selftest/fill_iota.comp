#version 460
// out[i] = i * scale + offset: the first pass of the self-test chain.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "selftest_push.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { FillIotaPush pc; };

void main() {
  uint i = voxenThreadIndex();
  if (i < pc.count) UintArray(pc.dst).v[i] = i * pc.scale + pc.offset;
}

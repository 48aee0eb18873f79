#version 460
// y[i] = a * float(x[i]) + y[i]: reads the previous pass's output, so a missing barrier
// between the two shows up as a wrong result.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "selftest_push.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

// No instance name: `pc` is the struct itself (selftest_push.h), its addresses cast where used.
layout(push_constant) uniform Push { SaxpyPush pc; };

void main() {
  uint i = voxenThreadIndex();
  UintArray x = UintArray(pc.x);
  FloatArray y = FloatArray(pc.y);
  if (i < pc.count) y.v[i] = pc.a * float(x.v[i]) + y.v[i];
}

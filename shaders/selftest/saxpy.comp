#version 460
// y[i] = a * float(x[i]) + y[i]: reads the previous pass's output, so a missing barrier
// between the two shows up as a wrong result.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  UintArray x;
  FloatArray y;
  uint count;
  float a;
} pc;

void main() {
  uint i = voxenThreadIndex();
  if (i < pc.count) pc.y.v[i] = pc.a * float(pc.x.v[i]) + pc.y.v[i];
}

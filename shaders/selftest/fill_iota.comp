#version 460
// out[i] = i * scale + offset: the first pass of the self-test chain.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  UintArray dst;
  uint count;
  uint scale;
  uint offset;
} pc;

void main() {
  uint i = voxenThreadIndex();
  if (i < pc.count) pc.dst.v[i] = i * pc.scale + pc.offset;
}

#version 460
// Clearance samples from the gathered corner values: trilinear between the 8 voxel
// centres around each point, with the gradient; where a corner has no value (-1: no
// obstacle within range, or a region the map does not hold) the sample is -1 with a zero
// gradient. The formula is the CPU reference's (engine/query/src/clearance_sample.cpp).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "clearance_sample.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryInterpolatePush pc; };

void main() {
  uint i = voxenThreadIndex();
  QueryInterpolatePush p = pc;
  if (i >= p.count) return;
  Vec4Array corners = Vec4Array(p.corners);
  vec4 low = corners.v[2u * i];
  vec4 high = corners.v[2u * i + 1u];
  vec4 f = Vec4Array(p.fractions).v[i];
  float c[8] = float[8](low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w);
  Vec4Array(p.samples).v[i] = clearanceSample(c, f.xyz, p.inverseResolution);
}

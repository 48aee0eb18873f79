#version 460
// Clearance samples from the gathered corner values: trilinear between the 8 voxel
// centres around each point, with the gradient and the status; where a corner has no value
// (no obstacle within range, or a region the map does not hold) the sample is -1 with a NaN
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
  uint status;
  vec4 sample_ = clearanceSample(c, f.xyz, p.inverseResolution, status);
  // The host's ClearanceSample: 5 words (clearance, gradient, status in the low byte).
  UintArray out_ = UintArray(p.samples);
  out_.v[5u * i] = floatBitsToUint(sample_.x);
  out_.v[5u * i + 1u] = floatBitsToUint(sample_.y);
  out_.v[5u * i + 2u] = floatBitsToUint(sample_.z);
  out_.v[5u * i + 3u] = floatBitsToUint(sample_.w);
  out_.v[5u * i + 4u] = status;
}

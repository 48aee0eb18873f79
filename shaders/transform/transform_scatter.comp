#version 460
// The changed local matrices arrive packed (the host uploads only those): one invocation per
// entry writes its node's local matrix and sets the node's dirty bit.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformPush p; } pc;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Mat4Array { mat4 v[]; };

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uint node = UintArray(pc.p.packedNodes).v[i];
  Mat4Array(pc.p.locals).v[node] = Mat4Array(pc.p.packedLocals).v[i];
  atomicOr(UintArray(pc.p.dirty).v[node / 32u], 1u << (node % 32u));
}

#version 460
// The changed local matrices arrive packed (the host uploads only those): one invocation per
// entry writes its node's local matrix and sets the dirty bit of the node's order position.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformPush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uvec2 entry = Uvec2Array(pc.p.packedNodes).v[i];  // (node, order position)
  uint node = entry.x;
  // As 64-bit words: half the load loops of floats on lavapipe (transform_levels.comp).
  Uint64Array from = Uint64Array(pc.p.packedLocals), to = Uint64Array(pc.p.locals);
  for (uint k = 0u; k < 8u; ++k) to.v[node * 8u + k] = from.v[i * 8u + k];
  atomicOr(UintArray(pc.p.dirty).v[entry.y / 32u], 1u << (entry.y % 32u));
}

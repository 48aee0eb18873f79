#version 460
// Culling, last pass (dispatched indirectly with the compaction's command, one invocation
// per visible node): the compacted order positions become node indices.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { CullPush p; } pc;

void main() {
  uint k = voxenThreadIndex();  // the command folds into y past 65,535 workgroups
  if (k >= UintArray(pc.p.total).v[0]) return;
  UintArray(pc.p.visible).v[k] = UintArray(pc.p.order).v[UintArray(pc.p.positions).v[k]];
}

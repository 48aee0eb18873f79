#version 460
// After the tree's structure changed the breadth-first positions moved: one invocation per
// new order position copies its node's world matrix and changed mark from the slot it had
// before to its new slot (transform_shared.h), so that nodes the next level passes do not
// recompute keep their worlds. A node without a slot before (added since) copies nothing:
// it is dirty, and the level passes compute it.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformMovePush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uint from = UintArray(pc.p.fromSlots).v[i], to = i + 1u;
  if (from == 0u) return;
  Uint64Array a = Uint64Array(pc.p.fromWorlds), b = Uint64Array(pc.p.toWorlds);
  for (uint k = 0u; k < 8u; ++k) b.v[to * 8u + k] = a.v[from * 8u + k];
  UintArray(pc.p.toMarks).v[to] = UintArray(pc.p.fromMarks).v[from];
}

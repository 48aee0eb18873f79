#version 460
// World matrices and changed marks from slots (the level passes' layout, transform_shared.h)
// to node indices, for the node-indexed GpuTransformTree::worlds() and changedMarks(): one
// invocation per entry reads its order position's slot (contiguous) and writes its node's
// matrix (a whole 64-byte line) and mark. With onlyGeneration set, only the entries that
// process() recomputed are copied.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformMovePush p; } pc;

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.count) return;
  uint position = pc.p.positions != 0ul ? UintArray(pc.p.positions).v[i] : i, slot = position + 1u;
  uint mark = UintArray(pc.p.fromMarks).v[slot];
  if (pc.p.onlyGeneration != 0u && mark != pc.p.onlyGeneration) return;
  uint node = UintArray(pc.p.order).v[position];
  // As 64-bit words: half the load loops of floats on lavapipe (transform_levels.comp).
  Uint64Array from = Uint64Array(pc.p.fromWorlds), to = Uint64Array(pc.p.toWorlds);
  for (uint k = 0u; k < 8u; ++k) to.v[node * 8u + k] = from.v[slot * 8u + k];
  UintArray(pc.p.toMarks).v[node] = mark;
}

#version 460
// World matrices, level by level: a node whose local changed (dirty bit) or whose parent's
// world was recomputed (changed bit) gets world = parent world x local and sets its own
// changed bit for its children. A wide level is one dispatch (one invocation per node); a
// run of narrow levels (at most kNarrowLevel nodes each) is one workgroup walking them in
// order with a barrier between levels, so that deep chains do not cost a dispatch per level.
// Changed marks are a uint per node (set: the node's world was recomputed).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformPush p; } pc;
layout(buffer_reference, std430, buffer_reference_align = 16) coherent buffer Mat4Array { mat4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer CoherentUints { uint v[]; };

bool bitSet(CoherentUints words, uint n) { return (words.v[n / 32u] & (1u << (n % 32u))) != 0u; }

// The changed marks are a uint per node, written with a plain store: bit words set by
// atomicOr made 32 neighbouring nodes fight over one word (measured: the atomics cost more
// than the product).
void updateNode(uint node) {
  uint parent = UintArray(pc.p.parents).v[node];
  CoherentUints changed = CoherentUints(pc.p.changed);
  if (!bitSet(CoherentUints(pc.p.dirty), node) && changed.v[parent] == 0u) return;
  Mat4Array worlds = Mat4Array(pc.p.worlds);
  mat4 parentWorld = worlds.v[parent];
  mat4 local = Mat4Array(pc.p.locals).v[node];
  worlds.v[node] = parentWorld * local;
  changed.v[node] = 1u;
}

void main() {
  UintArray order = UintArray(pc.p.order);
  UintArray starts = UintArray(pc.p.levelStarts);
  if (pc.p.lastLevel == pc.p.firstLevel + 1u) {  // one wide level: an invocation per node
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.p.count) return;
    updateNode(order.v[starts.v[pc.p.firstLevel] + i]);
    return;
  }
  // A run of narrow levels, one workgroup.
  for (uint level = pc.p.firstLevel; level < pc.p.lastLevel; ++level) {
    uint begin = starts.v[level], end = starts.v[level + 1u];
    uint i = begin + gl_LocalInvocationID.x;
    if (i < end) updateNode(order.v[i]);
    memoryBarrierBuffer();
    barrier();
  }
}

#version 460
// World matrices, level by level: a node whose local changed (dirty bit) or whose parent's
// world was recomputed (changed mark equal to this process's generation, so that the marks
// never need clearing) gets world = parent world x local and sets its own changed mark for
// its children. A wide level is one dispatch; a run of narrow levels (at
// most kNarrowLevel nodes each) is one workgroup walking them in order with a barrier
// between levels, so that deep chains do not cost a dispatch per level.
//
// The passes run over positions of the breadth-first level order (transform_shared.h): a
// level's entries are its positions, or the listed ones of a sparse update (increasing runs).
// The node, its parent's slot and its dirty bit are read at the position, and the world and
// changed mark are written at the position's slot (position + 1), so neighbouring
// invocations read and write neighbouring words and matrices; the parents' worlds and marks
// are read at their slots, one contiguous run per level grouped by parent. Only the local
// matrix is read by node (a whole 64-byte line).
//
// TRANSFORM_PRODUCT (a define, chosen by the host for the device) selects how the product
// is spread over invocations:
//   0: one invocation per matrix (best where a load is a loop over lanes: CPU drivers);
//   1: a quad of invocations per matrix, one column each, sharing the parent's columns by
//      subgroup shuffles (four neighbouring lanes read one matrix's 64 contiguous bytes:
//      coalesced on a GPU);
//   2: the same quads sharing through shared memory (devices without subgroup shuffles).
// Matrices are read and written as 64-bit words: lavapipe turns every component of a load
// through a buffer address into a loop over the lanes, so half the components is half the
// loops (measured 1.3-1.4x on the level pass).
#extension GL_GOOGLE_include_directive : require
#ifndef TRANSFORM_PRODUCT
#define TRANSFORM_PRODUCT 0
#endif
#if TRANSFORM_PRODUCT == 1
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "../common/buffers.glsl"
#include "transform_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { TransformPush p; } pc;
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer CoherentU64 { uint64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer CoherentUints { uint v[]; };

#if TRANSFORM_PRODUCT == 0
const uint kLanesPerNode = 1u;
#else
const uint kLanesPerNode = 4u;
#endif
#if TRANSFORM_PRODUCT == 2
shared vec4 parentColumns[64];
#endif

vec2 floats(uint64_t word) { return uintBitsToFloat(unpackUint2x32(word)); }
uint64_t word(vec2 x) { return packUint2x32(floatBitsToUint(x)); }
vec4 loadColumn(uint64_t matrices, uint index, uint column) {
  CoherentU64 a = CoherentU64(matrices);
  uint w = index * 8u + column * 2u;
  return vec4(floats(a.v[w]), floats(a.v[w + 1u]));
}
void storeColumn(uint64_t matrices, uint index, uint column, vec4 value) {
  CoherentU64 a = CoherentU64(matrices);
  uint w = index * 8u + column * 2u;
  a.v[w] = word(value.xy);
  a.v[w + 1u] = word(value.zw);
}

// Whether the world of the node at this order position must be recomputed, and its parent's slot.
bool needsUpdate(uint position, out uint parentSlot) {
  parentSlot = UintArray(pc.p.parentSlots).v[position];
  if (pc.p.readMarks == 0u) return true;
  CoherentUints dirty = CoherentUints(pc.p.dirty);
  return (dirty.v[position / 32u] & (1u << (position % 32u))) != 0u ||
         CoherentUints(pc.p.changed).v[parentSlot] == pc.p.generation;
}

// This invocation's lane within the workgroup, such that the four lanes of a quad
// (lane / 4) are neighbours in one subgroup whatever the subgroup size (a multiple of 4).
uint laneInWorkgroup() {
#if TRANSFORM_PRODUCT == 1
  return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
  return gl_LocalInvocationID.x;
#endif
}

// Updates the node at this invocation's slot's order position when `inUse`. Every
// invocation of the workgroup calls it (the quad variants share operands, so none may leave
// early).
void updateSlot(bool inUse, uint position) {
#if TRANSFORM_PRODUCT == 0
  uint parentSlot;
  if (!inUse || !needsUpdate(position, parentSlot)) return;
  uint node = UintArray(pc.p.order).v[position], ownSlot = position + 1u;
  // Written out, not looped: lavapipe counts loop iterations against its cap of 65,535.
  mat4 parentWorld = mat4(loadColumn(pc.p.worlds, parentSlot, 0u), loadColumn(pc.p.worlds, parentSlot, 1u),
                          loadColumn(pc.p.worlds, parentSlot, 2u), loadColumn(pc.p.worlds, parentSlot, 3u));
  mat4 local = mat4(loadColumn(pc.p.locals, node, 0u), loadColumn(pc.p.locals, node, 1u),
                    loadColumn(pc.p.locals, node, 2u), loadColumn(pc.p.locals, node, 3u));
  mat4 world = parentWorld * local;
  storeColumn(pc.p.worlds, ownSlot, 0u, world[0]);
  storeColumn(pc.p.worlds, ownSlot, 1u, world[1]);
  storeColumn(pc.p.worlds, ownSlot, 2u, world[2]);
  storeColumn(pc.p.worlds, ownSlot, 3u, world[3]);
  CoherentUints(pc.p.changed).v[ownSlot] = pc.p.generation;
#else
  uint column = laneInWorkgroup() & 3u, parentSlot = 0u;
  bool update = inUse && needsUpdate(position, parentSlot);
  uint node = update ? UintArray(pc.p.order).v[position] : 0u;
  vec4 parentColumn = update ? loadColumn(pc.p.worlds, parentSlot, column) : vec4(0.0);
  vec4 localColumn = update ? loadColumn(pc.p.locals, node, column) : vec4(0.0);
#if TRANSFORM_PRODUCT == 1
  uint quad = gl_SubgroupInvocationID & ~3u;
  vec4 p0 = subgroupShuffle(parentColumn, quad), p1 = subgroupShuffle(parentColumn, quad + 1u);
  vec4 p2 = subgroupShuffle(parentColumn, quad + 2u), p3 = subgroupShuffle(parentColumn, quad + 3u);
#else
  uint quad = gl_LocalInvocationID.x & ~3u;
  parentColumns[gl_LocalInvocationID.x] = parentColumn;
  barrier();
  vec4 p0 = parentColumns[quad], p1 = parentColumns[quad + 1u], p2 = parentColumns[quad + 2u], p3 = parentColumns[quad + 3u];
  barrier();  // before the next call overwrites the columns
#endif
  if (!update) return;
  uint ownSlot = position + 1u;
  storeColumn(pc.p.worlds, ownSlot, column, p0 * localColumn.x + p1 * localColumn.y + p2 * localColumn.z + p3 * localColumn.w);
  if (column == 0u) CoherentUints(pc.p.changed).v[ownSlot] = pc.p.generation;
#endif
}

// The order position of a level's entry i (an index into levelStarts' entries).
uint positionOf(uint i) { return pc.p.listed != 0ul ? UintArray(pc.p.listed).v[i] : i; }

void main() {
  UintArray starts = UintArray(pc.p.levelStarts);
  const uint slotsPerGroup = gl_WorkGroupSize.x / kLanesPerNode;
  uint slot = laneInWorkgroup() / kLanesPerNode;
  if (pc.p.lastLevel == pc.p.firstLevel + 1u) {  // one wide level: a slot per node
    // dispatchThreads folds more than 65,535 workgroups into y.
    uint i = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * slotsPerGroup + slot;
    bool inUse = i < pc.p.count;
    updateSlot(inUse, inUse ? positionOf(starts.v[pc.p.firstLevel] + i) : 0u);
    return;
  }
  // A run of narrow levels, one workgroup; a level's nodes in rounds of slotsPerGroup.
  for (uint level = pc.p.firstLevel; level < pc.p.lastLevel; ++level) {
    uint begin = starts.v[level], end = starts.v[level + 1u];
    for (uint first = begin; first < end; first += slotsPerGroup) {
      uint i = first + slot;
      updateSlot(i < end, i < end ? positionOf(i) : 0u);
    }
    memoryBarrierBuffer();
    barrier();
  }
}

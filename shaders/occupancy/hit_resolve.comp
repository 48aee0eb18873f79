#version 460
// Sequential order, last pass (after the miss pass; dispatched indirectly over the run list
// that hit_mark.comp filled, workgroup y its stripe): one invocation per voxel with hits in
// the batch (the first sorted position of its run) replays the voxel's updates in input order
// from the value hit_mark.comp saved: the misses before its first hit, then each hit
// followed by the misses between it and the next. Misses and hits are each all alike, so
// these counts are the whole order; the result is the sequential reference's, bit for bit.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

uint gSteps = 0u;

// `count` misses from x, each clamped. A voxel at the lower clamp stays there, so the loop
// ends there; that bounds the steps per gap between hits by the clamp range over the miss.
float applyMisses(float x, uint count, float miss) {
  for (uint i = 0u; i < count && x != gClampMin && gSteps < kMaxResolveSteps; ++i, ++gSteps)
    x = updatedValue(x, miss);
  return x;
}

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i >= gOrdered.v[gRunHeader + deferredCountOffset(stripe)]) return;
  uint p = gOrdered.v[gRunList + stripe * gRunStripeCapacity + i];
  uint key = ordered(kOrderedKeys, p);
  float hit = pc.p.hitValue, miss = pc.p.missValue;
  uint rayCount = pc.p.rayCount;
  float x = applyMisses(uintBitsToFloat(ordered(kOrderedOriginal, p)), ordered(kOrderedLeading, p), miss);
  uint q = p;
  for (; q < rayCount && gSteps < kMaxResolveSteps; ++q, ++gSteps) {
    if (ordered(kOrderedKeys, q) != key) break;
    x = updatedValue(x, hit);
    gUpdates += 1u;
    x = applyMisses(x, ordered(kOrderedTrailing, q), miss);
  }
  // Out of steps (thousands of hits on one voxel in one batch): the voxel keeps the value
  // reached, and the truncation is counted as a dropped update rather than passing unseen.
  if (gSteps >= kMaxResolveSteps) gDropped += 1u;
  gOccupancy.v[poolIndexOfKey(key)] = floatBitsToUint(x);
  flushCounters();
}

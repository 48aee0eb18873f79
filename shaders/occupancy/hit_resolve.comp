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

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i >= gOrdered.v[gRunHeader + deferredCountOffset(stripe)]) return;
  uint p = gOrdered.v[gRunList + stripe * gRunStripeCapacity + i];
  uint key = ordered(kOrderedKeys, p);
  float hit = pc.p.hitValue, miss = pc.p.missValue;
  uint rayCount = pc.p.rayCount;
  // One flat loop, one step per update: lavapipe counts every iteration of every loop, an
  // inner loop's exit check included, against its 65,535 per invocation, so nested loops
  // would be cut short silently before a budget of steps noticed. Misses stop at the lower
  // clamp (further ones change nothing), which bounds the steps per gap.
  float x = uintBitsToFloat(ordered(kOrderedOriginal, p));
  uint pending = ordered(kOrderedLeading, p);  // misses still to apply before the next hit
  uint q = p;                                  // the next hit's sorted position
  bool finished = false;
  for (uint step = 0u; step < kMaxResolveSteps; ++step) {
    if (pending > 0u && x != gClampMin) {
      x = updatedValue(x, miss);
      pending -= 1u;
      continue;
    }
    if (q >= rayCount || ordered(kOrderedKeys, q) != key) {
      finished = true;
      break;
    }
    x = updatedValue(x, hit);
    gUpdates += 1u;
    pending = ordered(kOrderedTrailing, q);
    q += 1u;
  }
  // Out of steps (tens of thousands of updates of one voxel in one batch): the voxel keeps
  // the value reached, and the truncation is counted as a dropped update rather than
  // passing unseen.
  if (!finished) gDropped += 1u;
  gOccupancy.v[poolIndexOfKey(key)] = floatBitsToUint(x);
  flushCounters();
}

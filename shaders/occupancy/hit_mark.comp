#version 460
// Sequential order, after the sort and before the miss pass: one invocation per sorted
// position (workgroups of 64: the run list's stripes count on it). Every position packs its key and ray into one 64-bit entry for the searches of
// the deferred misses. The first position p of each voxel's run of hits saves the voxel's occupancy
// and puts kOrderedMarker + p in its place, so that the miss pass counts its misses by
// where they fall between the run's hits instead of applying them. Every position clears
// its miss counters.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint p = voxenThreadIndex();
  if (p >= pc.p.rayCount) return;
  loadPushConstants();
  setOrdered(kOrderedLeading, p, 0u);
  setOrdered(kOrderedTrailing, p, 0u);
  uint key = ordered(kOrderedKeys, p);
  gOrderedPacked.v[p] = packUint2x32(uvec2(ordered(kOrderedRays, p), key));
  if (key == pc.p.noHitKey || (p > 0u && ordered(kOrderedKeys, p - 1u) == key)) return;
  uint index = poolIndexOfKey(key);
  setOrdered(kOrderedOriginal, p, gOccupancy.v[index]);
  gOccupancy.v[index] = kOrderedMarker + p;
  // List the run for hit_resolve.comp, in the stripe of this workgroup (p / 64).
  uint stripe = (p / 64u) % kDeferredStripes;
  uint slot = atomicAdd(gOrdered.v[gRunHeader + deferredCountOffset(stripe)], 1u);
  gOrdered.v[gRunList + stripe * gRunStripeCapacity + slot] = p;
}

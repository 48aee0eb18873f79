#version 460
// Sequential order, first pass (before the miss pass): one invocation per ray writes the
// key its hit is grouped by (its sample voxel's batch region index * region voxels + the
// voxel's index in the region; noHitKey when it has no hit), and its ray index; the radix sort that follows groups the keys by voxel and keeps
// the rays of a voxel in input order. The optional layers' hit updates commute, so they
// are applied here; the occupancy hit waits for hit_resolve.comp. Under NDT (kPassNdt) the
// miss pass writes the keys (writeHitKey) and this pass runs only for the layers, when the
// map has ones that need it (traversal, touch time). Dispatched over at least
// kDeferredStripes invocations: the first ones empty the lists of runs and deferred misses.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "hit_sample.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint i = voxenThreadIndex();
  loadPushConstants();
  bool ndt = (gFlags & kPassNdt) != 0u;
  // Invocation s < kDeferredStripes empties stripe s of the lists the marks and the miss
  // pass append to (straight-line code: a loop here would be run, masked, by every lane).
  // NDT runs this pass after the miss pass (which writes its keys), for the layers only.
  if (!ndt && i < kDeferredStripes) {
    gOrdered.v[gMissHeader + deferredCountOffset(i)] = 0u;
    gOrdered.v[gRunHeader + deferredCountOffset(i)] = 0u;
  }
  if (i >= pc.p.rayCount) return;
  uint slot, local;
  float tEnter;
  uint key = pc.p.noHitKey;
  if (hitSampleOfRay(i, slot, local, tEnter)) {
    uint batchRegion = gOrdered.v[orderedBatchOfSlot(gOrderCapacity) + slot];
    key = batchRegion * regionVoxels() + local;
    applyLayers(slot * regionVoxels() + local, true, tEnter, 1.0);
  }
  if (!ndt) {
    setOrdered(kOrderedKeys, i, key);
    setOrdered(kOrderedRays, i, i);
  }
  flushCounters();
}

#version 460
// Hit pass, after every miss of the batch: one invocation per ray applies the hit log-odds
// (and the voxel-mean sample) to its sample voxel, so a hit is never eroded by the misses
// of its own batch.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.itemCount) return;
  loadPushConstants();
  // Read only what the hit needs: on lavapipe every component of a buffer load is a loop
  // over the lanes, and the default case needs 4 of the ray's 20 words, in three 64-bit
  // loads: (start.z, flags) and (end.x, end.y) and (end.z, segments).
  Uint64Array words = Uint64Array(pc.p.rays);
  gRay.flags = unpackUint2x32(words.v[i * 10u + 5u]).y;
  if ((gRay.flags & kSampleHit) == 0u) return;
  gRay.end = ivec3(unpackUint2x32(words.v[i * 10u + 6u]), unpackUint2x32(words.v[i * 10u + 7u]).x);
  const uint kLayers = kLayerVoxelMean | kLayerTraversal | kLayerHitMiss | kLayerTouchTime;
  float tEnter = 0.0;
  if ((gFlags & (kLayers | kPassStopOnOccupied)) != 0u) {
    gRay = RayArray(pc.p.rays).v[i];
    tEnter = sampleEnterT();
    if ((gFlags & kPassStopOnOccupied) != 0u && tEnter > uintBitsToFloat(UintArray(pc.p.stop).v[i])) return;
  }
  uint index;
  if (voxelIndexByTable(gRay.end, index)) {
    applyDelta(index, pc.p.hitValue);
    applyLayers(index, true, tEnter, 1.0);
  }
  flushCounters();
}

#version 460
// NDT hit pass, last: one invocation per distinct sample voxel of the batch folds the
// voxel's samples into it in input order (ndtFoldSample: mean, covariance, NDT-TM's counts
// and intensity, hit log-odds), reading the voxel once and writing it once, so no two
// invocations ever update one Gaussian. Level 0 (itemCount) takes every run's first
// foldLimit samples, over the compacted run list (dispatched indirectly, sized by the
// compaction); level k continues the runs longer than k * foldLimit (lavapipe stops an
// invocation's loops after 65,535 iterations), after level k - 1.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint level = pc.p.itemCount;
  uint i = voxenThreadIndex();  // the compaction's command folds into y past 65,535 workgroups
  uint count, p = 0u;
  if (level == 0u) {
    count = gNdtWords.v[kNdtRunTotal];
    gFoldInvocations = 1u;
    if (i < count) p = ordered(kOrderedTrailing, i);  // the compacted run heads
  } else {
    uint header = ndtLevelHeader(level, gOrderCapacity, gNdt.foldLimit);
    count = gNdtWords.v[header + 3u];
    if (i < count) p = gNdtWords.v[header + 4u + i];
  }
  if (i < count) {
    if (level == 0u) gSampleVoxels = 1u;
    uint rayCount = pc.p.rayCount;
    uint key = ordered(kOrderedKeys, p);
    uint index = poolIndexOfKey(key);
    uint first = p + level * gNdt.foldLimit;
    uint last = min(first + gNdt.foldLimit, rayCount);
    bool tm = (gFlags & kPassNdtTm) != 0u;
    float hit = pc.p.hitValue;
    NdtVoxel v = loadNdtVoxel(index);
    Uint64Array words = Uint64Array(pc.p.rays);
    for (uint q = first; q < last; ++q) {
      if (ordered(kOrderedKeys, q) != key) break;
      uint r = ordered(kOrderedRays, q) * 10u;
      // GpuRay's words: (o.x, o.y) (o.z, intensity) (d.x, d.y) (d.z, meanPacked) (start.x,
      // start.y) (start.z, flags) (end.x, end.y) (end.z, segments).
      uvec2 q0 = unpackUint2x32(words.v[r]), q1 = unpackUint2x32(words.v[r + 1u]);
      uvec2 q2 = unpackUint2x32(words.v[r + 2u]), q3 = unpackUint2x32(words.v[r + 3u]);
      uvec2 q4 = unpackUint2x32(words.v[r + 4u]), q5 = unpackUint2x32(words.v[r + 5u]);
      uvec2 q6 = unpackUint2x32(words.v[r + 6u]), q7 = unpackUint2x32(words.v[r + 7u]);
      ivec3 toStart = ivec3(q4, q5.x) - ivec3(q6, q7.x);
      NdtSegment g = ndtSegmentInVoxel(uintBitsToFloat(q0.x), uintBitsToFloat(q0.y), uintBitsToFloat(q1.x),
                                       uintBitsToFloat(q2.x), uintBitsToFloat(q2.y), uintBitsToFloat(q3.x),
                                       toStart.x, toStart.y, toStart.z, gNdt.resolution);
      v = ndtFoldSample(v, gNdt, q3.y, g, uintBitsToFloat(q1.y), hit, gClampMin, gClampMax, tm);
      gUpdates += 1u;
    }
    storeNdtVoxel(index, v);
  }
  flushCounters();
}

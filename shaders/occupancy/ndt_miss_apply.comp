#version 460
// NDT free-space updates of the voxels with a Gaussian, after the sorts (ndt_strategy.cpp):
// the listed updates are in voxel key order and, per voxel, in ray order. One invocation
// per voxel applies its run in that order (ndtMissUpdate against the voxel's Gaussian, which
// no free-space update changes, then add and clamp), reading the occupancy once and writing
// it once: no compare-and-swap, so the float sums and the clamp see the same order in every
// run, at every batch size and on every device, the CPU reference's order. Level 0
// (itemCount) runs over every sorted position and acts at the first of each voxel's run,
// taking its first foldLimit updates; level k continues the runs longer than k * foldLimit
// (lavapipe stops an invocation's loops after 65,535 iterations), after level k - 1.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_access.glsl"
#include "ndt_miss_order.h"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

uint gKeys, gRays;  // word offsets of the sorted arrays in gNdtWords
uint keyAt(uint p) { return gNdtWords.v[gKeys + p]; }

// The voxel's coordinates from its pool index: its slot's region key and its index there.
ivec3 voxelOfIndex(uint index) {
  uint n = uint(gRegionSize);
  uint slot = index / (n * n * n);
  uint local = index - slot * (n * n * n);
  ivec3 key = ivec3(Uvec4Array(pc.p.ndt + uint64_t(gNdt.slotKeys) * 4u).v[slot].xyz);
  return key * int(n) + ivec3(local % n, (local / n) % n, local / (n * n));
}

// Lists a run longer than foldLimit at the levels that continue it (as ndt_runs.comp does
// for the hits); p is its first position.
void listLongRun(uint base, uint p, uint key, uint total) {
  uint lo = p + 1u, hi = total;  // keys are sorted: "equals key" holds on [p, end) only
  for (uint i = 0u; i < 32u && lo < hi; ++i) {
    uint mid = (lo + hi) / 2u;
    if (keyAt(mid) == key) lo = mid + 1u;
    else hi = mid;
  }
  uint length = lo - p;
  for (uint level = 1u; level * gNdt.foldLimit < length; ++level) {
    uint header = base + ndtMissLevelHeader(level, gOrderCapacity, gNdt.foldLimit);
    uint slot = atomicAdd(gNdtWords.v[header + 3u], 1u);
    gNdtWords.v[header + 4u + slot] = p;
    if (slot % 64u == 0u) atomicAdd(gNdtWords.v[header], 1u);  // workgroups of the level's pass
    gNdtWords.v[header + 1u] = 1u;
    gNdtWords.v[header + 2u] = 1u;
  }
}

void main() {
  loadPushConstants();
  uint level = pc.p.itemCount;
  uint i = voxenThreadIndex();
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  gKeys = base + ndtMissKeys(gNdt.levels, gOrderCapacity, gNdt.foldLimit);
  gRays = base + ndtMissRays(gNdt.levels, gOrderCapacity, gNdt.foldLimit);
  uint total = gNdtWords.v[base + kNdtMissTotal];
  bool act = false;
  uint p = 0u;
  if (level == 0u) {
    p = i;
    act = i < total && (i == 0u || keyAt(i - 1u) != keyAt(i));
  } else {
    uint header = base + ndtMissLevelHeader(level, gOrderCapacity, gNdt.foldLimit);
    act = i < gNdtWords.v[header + 3u];
    if (act) p = gNdtWords.v[header + 4u + i];
  }
  if (act) {
    uint key = keyAt(p);
    uint index = poolIndexOfKey(key);
    ivec3 v = voxelOfIndex(index);
    NdtVoxel vox;
    vox.occupancy = 0.0;  // ndtMissUpdate reads the Gaussian only
    vox.hits = 0u;
    vox.misses = 0u;
    vox.intensity.mean = 0.0;
    vox.intensity.variance = 0.0;
    uvec4 mean = gMean.v[index];  // whole, once (lavapipe: see DESIGN.md)
    vox.count = mean.x;
    vox.sumX = mean.y;
    vox.sumY = mean.z;
    vox.sumZ = mean.w;
    vox.cov = loadCovariance(index);
    float occupancy = uintBitsToFloat(gOccupancy.v[index]);
    float missValue = pc.p.missValue;
    bool tm = (gFlags & kPassNdtTm) != 0u;
    uint tmMisses = 0u;
    uint first = p + level * gNdt.foldLimit;
    uint last = min(first + gNdt.foldLimit, total);
    Uint64Array words = Uint64Array(pc.p.rays);
    for (uint q = first; q < last; ++q) {
      if (keyAt(q) != key) break;
      // The ray's origin, direction and start voxel: words 0-5 of GpuRay (64-bit loads; see
      // loadRayForWalk).
      uint r = gNdtWords.v[gRays + q] * 10u;
      uvec2 q0 = unpackUint2x32(words.v[r]), q1 = unpackUint2x32(words.v[r + 1u]), q2 = unpackUint2x32(words.v[r + 2u]);
      uvec2 q3 = unpackUint2x32(words.v[r + 3u]), q4 = unpackUint2x32(words.v[r + 4u]), q5 = unpackUint2x32(words.v[r + 5u]);
      gRay.o = uintBitsToFloat(uvec3(q0, q1.x));
      gRay.d = uintBitsToFloat(uvec3(q2, q3.x));
      gRay.start = ivec3(q4, q5.x);
      NdtMissUpdate u = ndtMissUpdate(vox, gNdt, ndtSegmentOfRay(v), missValue);
      occupancy = ndtUpdatedValue(occupancy, u.delta, gClampMin, gClampMax);
      if (u.tmMiss) tmMisses += 1u;
      gUpdates += 1u;
    }
    gOccupancy.v[index] = floatBitsToUint(occupancy);
    // Integer counts commute; the miss pass counts the TM misses of voxels without a Gaussian.
    if (tm && tmMisses > 0u) atomicAdd(gHitMiss.v[index].y, tmMisses);
    if (level == 0u && last < total && keyAt(last) == key) listLongRun(base, p, key, total);
  }
  flushCounters();
}

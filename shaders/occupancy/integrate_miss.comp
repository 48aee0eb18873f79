#version 460
// Miss pass: one invocation per ray segment walks its voxels (reverse by default) and
// applies the miss log-odds to each, except the sample voxel of a ray that ends in a hit.
// Under NDT (kPassNdt) a voxel with a Gaussian gets the NDT free-space update instead. In
// the one-pass order (kPassOnePass) the invocation of a ray's first segment then applies
// the ray's hit too.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_access.glsl"
#include "hit_sample.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

float gStopAt;
float gMissValue;
void ndtStep(bool ok, uint index, uint value, uint count);  // NDT (below)
bool countMatters(uint value);
uint gClampMinBits;

bool visitVoxel(ivec3 v, float tEnter, float tExit) {
  if (!(tEnter < gStopAt)) return (gFlags & kPassReverse) != 0u;  // reverse walks reach earlier voxels later
  bool isSample = v == gRay.end;
  if (isSample && (gRay.flags & (kSampleHit | kSkipSample)) != 0u) return true;
  if (!isSample && v == gRay.start && (gRay.flags & kSkipOrigin) != 0u) return true;
  uint index;
  if (!voxelIndex(v, index)) return true;
  if ((gFlags & kPassNdt) != 0u) {
    uint value = gOccupancy.v[index];
    ndtStep(true, index, value, countMatters(value) ? gMeanWords.v[index * 4u] : 0u);
  }
  else applyDelta(index, gMissValue);
  applyLayers(index, false, tEnter, tExit);
  return true;
}

// The batched walk (no optional layers): two voxels per round, their loads issued
// together, then their updates.
bool missIndex(ivec3 v, float tEnter, out uint index) {
  index = 0u;
  if (!(tEnter < gStopAt)) return false;
  bool isSample = v == gRay.end;
  if (isSample && (gRay.flags & (kSampleHit | kSkipSample)) != 0u) return false;
  if (!isSample && v == gRay.start && (gRay.flags & kSkipOrigin) != 0u) return false;
  return voxelIndex(v, index);
}

bool ok0, ok1;
uint ix0, ix1;

// Two voxels per round: their loads are issued together so their latencies overlap. Four
// per round was measured slower on lavapipe (more masked steps wasted at a segment's end,
// where every lane runs the whole round).
void flushRound() {
  uint o0 = 0u, o1 = 0u;
  if (ok0) o0 = gOccupancy.v[ix0];
  if (ok1) o1 = gOccupancy.v[ix1];
  if (ok0) applyDeltaFrom(ix0, gMissValue, o0);
  if (ok1) applyDeltaFrom(ix1, gMissValue, o1);
}

// Sequential order, when the deferred-miss list filled up during this invocation's walk:
// walk the segment again and count the misses on marked voxels that were not listed (the
// first gListedMarkers were). Marks do not change during the miss pass, so the second walk
// meets the same ones in the same order. Outside the walk loop, so the walk pays nothing.
void countUnlistedMisses(uint s, uint m, bool reverse) {
  walkBegin(s, m, reverse);
  uint seen = 0u;
  while (wAlive) {
    ivec3 v;
    float te, tx;
    uint index;
    bool emit = reverse ? walkReverse(v, te, tx) : walkForward(v, te, tx);
    if (!emit || !missIndex(v, te, index)) continue;
    uint value = gOccupancy.v[index];
    if (value < kOrderedMarker) continue;
    if (seen >= gListedMarkers) countOrderedMiss(value - kOrderedMarker, gRayIndex);
    seen += 1u;
  }
}

// NDT in the batched walk: the sample count is loaded with the occupancy; a voxel with a
// Gaussian gets its free-space update in ndt_miss_apply.comp (listed here), every other voxel
// the plain miss. The NDT formula stays out of the walk loop: lavapipe runs a loop body's
// every branch under lane masks, taken or not, and the formula in the loop cost as much as
// the walk itself (measured: 1.9x the pass time with no voxel ever taking it).
//
// A voxel at the lower clamp stays there under either miss (every NDT miss lowers or keeps
// a value) and an unobserved voxel has no samples, so NDT-OM skips their counts (another
// layer's cache line per voxel); NDT-TM counts its misses by the Gaussian and loads every
// count.
bool countMatters(uint value) {
  return (gFlags & kPassNdtTm) != 0u || (value != gClampMinBits && value != 0x7f800000u);
}

// Once the list is full, this invocation stops updating; the voxels it handled so far
// (gNdtHandled, in walk order) are skipped by the second walk, which does the rest.
uint gNdtHandled = 0u;
void ndtStep(bool ok, uint index, uint value, uint count) {
  if (!ok || gMarkersUnlisted) return;
  if (count >= gNdt.sampleThreshold) {
    deferMiss(index);
    if (gMarkersUnlisted) return;
  } else {
    applyDeltaFrom(index, gMissValue, value);
    if ((gFlags & kPassNdtTm) != 0u) atomicAdd(gHitMiss.v[index].y, 1u);  // no Gaussian: always a TM miss
  }
  gNdtHandled += 1u;
}

void flushRoundNdt() {
  uint o0 = 0u, o1 = 0u, c0 = 0u, c1 = 0u;
  if (ok0) o0 = gOccupancy.v[ix0];
  if (ok1) o1 = gOccupancy.v[ix1];
  if (ok0 && countMatters(o0)) c0 = gMeanWords.v[ix0 * 4u];
  if (ok1 && countMatters(o1)) c1 = gMeanWords.v[ix1 * 4u];
  ndtStep(ok0, ix0, o0, c0);
  ndtStep(ok1, ix1, o1, c1);
}

// When the NDT list filled up during this invocation's walk: walk the segment again, skip
// the voxels the first walk handled and apply the plain misses of the rest by compare-and-swap
// (the same delta every time: any order gives the same value). The voxels with a Gaussian
// are left to the sums walk (below), which the overflow brings on. The walk meets the same
// voxels in the same order. Outside the walk loop, so the walk pays nothing for it.
void finishNdtWalk(uint s, uint m, bool reverse) {
  walkBegin(s, m, reverse);
  uint seen = 0u;
  while (wAlive) {
    ivec3 v;
    float te, tx;
    uint index;
    bool emit = reverse ? walkReverse(v, te, tx) : walkForward(v, te, tx);
    if (!emit || !missIndex(v, te, index)) continue;
    seen += 1u;
    if (seen <= gNdtHandled) continue;
    uint value = gOccupancy.v[index];
    uint count = countMatters(value) ? gMeanWords.v[index * 4u] : 0u;  // as ndtStep decides
    if (count >= gNdt.sampleThreshold) continue;
    applyDeltaFrom(index, gMissValue, value);
    if ((gFlags & kPassNdtTm) != 0u) atomicAdd(gHitMiss.v[index].y, 1u);
  }
}

// The sums walk (NdtStrategy, when the NDT list overflowed: kSumWalk, specialization constant
// 1): walks every segment again and adds each free-space update of a voxel with a Gaussian to
// the voxel's sum (ndt_access.glsl, addNdtMissToSum), listed or not: which updates got listed
// depended on the GPU's scheduling, the integer sums do not. The plain misses were applied by
// the miss pass.
layout(constant_id = 1) const uint kSumWalk = 0u;
void sumNdtWalk(uint s, uint m, bool reverse) {
  walkBegin(s, m, reverse);
  while (wAlive) {
    ivec3 v;
    float te, tx;
    uint index;
    bool emit = reverse ? walkReverse(v, te, tx) : walkForward(v, te, tx);
    if (!emit || !missIndex(v, te, index)) continue;
    // The miss pass's choice (countMatters, ndtStep): a voxel with a Gaussian whose value a
    // miss cannot change got the plain miss there. No value with a Gaussian changed since.
    if (!countMatters(gOccupancy.v[index])) continue;
    uint count = gMeanWords.v[index * 4u];
    if (count >= gNdt.sampleThreshold) addNdtMissToSum(v, index, count, gMissValue);
  }
}

// NDT: the invocation of a ray's first segment writes the key its hit is grouped by (as
// hit_keys.comp does for the sequential order), from the sample region discovery stored.
// This spares NDT a pass over the rays. A sample in another chunk's region has no hit here.
void writeHitKey(uint r) {
  uint key = pc.p.noHitKey;
  int sampleRegion = sampleSlot(r);
  if ((gRay.flags & kSampleHit) != 0u && sampleRegion >= 0) {
    int n = gRegionSize;
    uint slot = uint(sampleRegion);
    uint batchRegion = gOrdered.v[orderedBatchOfSlot(gOrderCapacity) + slot];
    ivec3 local = gRay.end - regionOfVoxel(gRay.end, n) * n;
    key = batchRegion * uint(n * n * n) + uint(local.x + n * (local.y + n * local.z));
  }
  setOrdered(kOrderedKeys, r, key);
  setOrdered(kOrderedRays, r, r);
}

#define MISS_STEP(walkFn, k) { ivec3 v; float te, tx; ok##k = walkFn(v, te, tx) && missIndex(v, te, ix##k); }

void main() {
  uint i = voxenThreadIndex();
  if (i >= pc.p.itemCount) return;
  loadPushConstants();
  gMissValue = pc.p.missValue;
  gClampMinBits = floatBitsToUint(gClampMin);
  uvec2 segment = loadSegment(i);
  gRayIndex = segment.x;
  loadRayForWalk(segment.x);
  gStopAt = (gFlags & kPassStopOnOccupied) != 0u ? uintBitsToFloat(UintArray(pc.p.stop).v[segment.x]) : kInf;
  bool reverse = (gFlags & kPassReverse) != 0u;
  if (kSumWalk != 0u) {
    sumNdtWalk(segment.y, gRay.segments, reverse);
    flushCounters();
    return;
  }
  if ((gFlags & kPassNdt) != 0u && segment.y == 0u) writeHitKey(segment.x);
  // The layers whose miss updates need the general walk (NDT folds the voxel mean itself,
  // and NDT-TM's hit/miss counts are counted in flushRoundNdt).
  const uint kLayers = kLayerVoxelMean | kLayerTraversal | kLayerHitMiss | kLayerTouchTime;
  const uint kNdtLayers = kLayerVoxelMean | ((gFlags & kPassNdtTm) != 0u ? kLayerHitMiss : 0u);
  bool ndt = (gFlags & kPassNdt) != 0u;
  if ((gFlags & kLayers & ~(ndt ? kNdtLayers : 0u)) != 0u) {
    walkSegment(segment.y, gRay.segments, reverse);
  } else if (ndt) {
    walkBegin(segment.y, gRay.segments, reverse);
    if (reverse) {
      while (wAlive) {
        MISS_STEP(walkReverse, 0) MISS_STEP(walkReverse, 1)
        flushRoundNdt();
      }
    } else {
      while (wAlive) {
        MISS_STEP(walkForward, 0) MISS_STEP(walkForward, 1)
        flushRoundNdt();
      }
    }
  } else {
    walkBegin(segment.y, gRay.segments, reverse);
    if (reverse) {
      while (wAlive) {
        MISS_STEP(walkReverse, 0) MISS_STEP(walkReverse, 1)
        flushRound();
      }
    } else {
      while (wAlive) {
        MISS_STEP(walkForward, 0) MISS_STEP(walkForward, 1)
        flushRound();
      }
    }
  }
  if ((gFlags & kPassSequential) != 0u && gMarkersUnlisted) countUnlistedMisses(segment.y, gRay.segments, reverse);
  if ((gFlags & kPassNdt) != 0u && gMarkersUnlisted) finishNdtWalk(segment.y, gRay.segments, reverse);
  // After this segment's misses; the ray's other segments may run before or after, but no
  // miss of a ray falls on its own sample voxel. Outside the walk loop: the walk pays nothing.
  if ((gFlags & kPassOnePass) != 0u && segment.y == 0u) applyRayHit(segment.x);
  flushCounters();
}

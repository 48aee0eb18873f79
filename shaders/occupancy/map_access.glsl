// The GPU side of the region cache: push constants shared by the occupancy passes, region
// slots through the batch's discovered regions, and the log-odds update by compare-and-swap.
#ifndef VOXEN_OCCUPANCY_MAP_ACCESS_GLSL
#define VOXEN_OCCUPANCY_MAP_ACCESS_GLSL

#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../map/region_table.glsl"
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "gpu_ray.glsl"
#include "discovery_shared.h"
#include "ndt_miss_order.h"

layout(buffer_reference, std430, buffer_reference_align = 16) buffer RayArray { GpuRay v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SegmentArray { uvec2 v[]; };

// The push constants (OccupancyPush, occupancy_shared.h): buffer addresses as uint64_t,
// cast to their buffer_reference types where they are used.
layout(push_constant) uniform Push { OccupancyPush p; } pc;

// Push constants the per-voxel code reads, copied once per invocation: lavapipe fetches a
// push constant per lane at every use, which costs more than the walk step itself. Every
// occupancy shader calls loadPushConstants() first.
UintArray gOccupancy;   // float bits per voxel, slot-major
Uvec4Array gMean;       // per voxel: count, sum x, sum y, sum z
Uint64Array gTraversal; // per voxel: length in 1/65536 voxel
Uvec2Array gHitMiss;    // per voxel: hits, misses
Uint64Array gTouch;     // per voxel: double bits of the latest time (positive doubles order as uint64)
UintArray gRaySlots;    // per ray its sample region's set entry, then the rays' region lists (set entries)
UintArray gEntrySlots;  // per set entry: the region's cache slot, or kNotInChunk
UintArray gOrdered;     // kPassSequential: the ordered scratch (kOrdered* arrays)
Uint64Array gOrderedPacked;  // its kOrderedPacked array
Uint64Array gMissList;       // its deferred-miss list
uint gOrderCapacity;
uint gMissHeader, gStripeCapacity;
uint gRunHeader, gRunList, gRunStripeCapacity;  // the list of runs to replay in it
// kPassNdt: the NDT parameters and the layers only the NDT passes use.
layout(buffer_reference, std430, buffer_reference_align = 16) buffer NdtParamsRef { NdtParams v; };
NdtParams gNdt;
UintArray gNdtWords;      // OccupancyPush::ndt as words: the run totals and chunk-level lists
UintArray gMeanWords;     // the voxel-mean pool as words (4 per voxel, the count first)
Uint64Array gCovariance;  // 3 words per voxel: (s00, s10) (s11, s20) (s21, s22)
Uvec2Array gIntensity;    // NDT-TM, per voxel: float bits of the intensity mean and variance
int gRegionSize;
uint gFlags;
float gClampMin, gClampMax;
// The pass flags as a specialization constant (GpuIntegrator sets it to the flags it
// pushes): lavapipe runs both sides of every branch, taken or not, uniform or not, under
// lane masks, so the paths of the layers and walk directions a map does not use cost as
// much as the ones it uses unless the compiler can drop them. kFlagsFromPush (the
// default): read pc.p.flags instead.
const uint kFlagsFromPush = 0xFFFFFFFFu;
layout(constant_id = 0) const uint kSpecFlags = kFlagsFromPush;

void loadPushConstants() {
  gFlags = kSpecFlags == kFlagsFromPush ? pc.p.flags : kSpecFlags;
  // The layers' pools from the region cache's layer table (layer_table.h); a layer the
  // map does not have is not read (its flag is off and the specialised pass drops the code).
  Uint64Array layers = Uint64Array(pc.p.layers);
  gOccupancy = UintArray(layers.v[kLayerIdOccupancy]);
  if ((gFlags & kLayerVoxelMean) != 0u) gMean = Uvec4Array(layers.v[kLayerIdVoxelMean]);
  if ((gFlags & kLayerTraversal) != 0u) gTraversal = Uint64Array(layers.v[kLayerIdTraversal]);
  if ((gFlags & kLayerHitMiss) != 0u) gHitMiss = Uvec2Array(layers.v[kLayerIdHitMiss]);
  if ((gFlags & kLayerTouchTime) != 0u) gTouch = Uint64Array(layers.v[kLayerIdTouchTime]);
  gRaySlots = UintArray(pc.p.raySlots);
  gEntrySlots = UintArray(pc.p.entrySlots);
  if ((gFlags & kPassNdt) != 0u) {
    gNdt = NdtParamsRef(pc.p.ndt).v;
    gNdtWords = UintArray(pc.p.ndt);
    gMeanWords = UintArray(layers.v[kLayerIdVoxelMean]);
    gCovariance = Uint64Array(layers.v[gNdt.covarianceLayer]);
    if ((gFlags & kPassNdtTm) != 0u) gIntensity = Uvec2Array(layers.v[gNdt.intensityLayer]);
  }
  if ((gFlags & (kPassSequential | kPassNdt)) != 0u) {
    gOrdered = UintArray(pc.p.ordered);
    gOrderCapacity = pc.p.orderCapacity;
    gOrderedPacked = Uint64Array(pc.p.ordered);
    gMissHeader = orderedMissHeader(gOrderCapacity, pc.p.slotCount);
    gMissList = Uint64Array(pc.p.ordered + uint64_t(orderedMissList(gOrderCapacity, pc.p.slotCount)) * 4u);
    gStripeCapacity = deferredStripeCapacity(gOrderCapacity);
    gRunHeader = orderedRunHeader(gOrderCapacity, pc.p.slotCount);
    gRunList = orderedRunList(gOrderCapacity, pc.p.slotCount);
    gRunStripeCapacity = runStripeCapacity(gOrderCapacity);
    if ((gFlags & kPassNdt) != 0u) {  // NDT's larger list (ndt_miss_order.h), same header
      gMissList = Uint64Array(pc.p.ordered + uint64_t(ndtOrderedMissList(gOrderCapacity, pc.p.slotCount)) * 4u);
      gStripeCapacity = ndtStripeCapacity(gOrderCapacity);
    }
  }
  gRegionSize = pc.p.regionSize;
  gClampMin = pc.p.clampMin;
  gClampMax = pc.p.clampMax;
}

// Loads ray r into gRay (the touch time only when the layer is on): 9 loads of 64 bits instead of 18
// of 32. GpuRay's 64-bit words: (o.x, o.y) (o.z, reserved) (d.x, d.y)
// (d.z, meanPacked) (start.x, start.y) (start.z, flags) (end.x, end.y) (end.z, segments)
// (slotBase, segmentBase) (touch time).
void loadRayForWalk(uint r) {
  // The record read 64 bits at a time (as Uint64Array): lavapipe turns every component of
  // a buffer-device-address load into a loop over the 8 lanes whatever its width, so two
  // 32-bit fields in one 64-bit load cost one such loop instead of two.
  Uint64Array words = Uint64Array(pc.p.rays);
  uint base = r * 10u;
  uvec2 q0 = unpackUint2x32(words.v[base + 0u]);
  uvec2 q1 = unpackUint2x32(words.v[base + 1u]);
  uvec2 q2 = unpackUint2x32(words.v[base + 2u]);
  uvec2 q3 = unpackUint2x32(words.v[base + 3u]);
  uvec2 q4 = unpackUint2x32(words.v[base + 4u]);
  uvec2 q5 = unpackUint2x32(words.v[base + 5u]);
  uvec2 q6 = unpackUint2x32(words.v[base + 6u]);
  uvec2 q7 = unpackUint2x32(words.v[base + 7u]);
  uvec2 q8 = unpackUint2x32(words.v[base + 8u]);
  gRay.o = uintBitsToFloat(uvec3(q0, q1.x));
  // word 9, the touch time, only where the layer needs it
  if ((gFlags & kLayerTouchTime) != 0u) gRay.touchTime = unpackUint2x32(words.v[base + 9u]);
  gRay.d = uintBitsToFloat(uvec3(q2, q3.x));
  gRay.meanPacked = q3.y;
  gRay.start = ivec3(q4, q5.x);
  gRay.flags = q5.y;
  gRay.end = ivec3(q6, q7.x);
  gRay.segments = q7.y;
  gRay.slotBase = q8.x;
  gRay.segmentBase = q8.y;
  gRayRegions = regionCountOfRay(gRay.start, gRay.end, gRegionSize);
}

// Segment i of the dispatch: (ray, segment index), one 64-bit load.
uvec2 loadSegment(uint i) { return unpackUint2x32(Uint64Array(pc.p.segments).v[i]); }

// Voxel index into the pools. Region discovery lists, per ray, the set entry of every
// region on its walk in walk order, and the host gives each set entry its cache slot;
// consecutive voxels are neighbours, so leaving the current region means moving one entry
// along that list (and one region along one axis). Only an invocation's first voxel needs
// the region key by division.
ivec3 gRegionBase;
int gCachedSlot = -1;
uint gMissingRegions = 0u;
const int kSlotNotInChunk = int(kNotInChunk);  // -2: the region's updates belong to another chunk

// The slot of a set entry: a cache slot, kSlotNotInChunk, or -1 (missing: counted as an error).
int slotOfEntry(uint entry) { return int(gEntrySlots.v[entry]); }

int listedSlot(int regionIndex) {
  if (regionIndex < 0 || uint(regionIndex) >= gRayRegions) return -1;
  return slotOfEntry(gRaySlots.v[gRay.slotBase + uint(regionIndex)]);
}

// The slot of ray r's sample voxel's region (its walk's last region), from discovery.
int sampleSlot(uint r) { return slotOfEntry(gRaySlots.v[r]); }

// Called by the walk once, with the voxel it starts from (after crossing the faces that
// gRegionIndex counts), before any followRegion: the only region key found by division.
void beginRegion(ivec3 v) {
  int n = gRegionSize;
  gRegionBase = regionOfVoxel(v, n) * n;
  gCachedSlot = listedSlot(gRegionIndex);
}

// Called by the walk for every voxel it reaches after the start voxel, in walk order and
// before visitVoxel (which may skip voxels), so that the region list index never falls
// behind: a voxel is a neighbour of the previous one, so leaving the region means moving
// one entry along the ray's list.
void followRegion(ivec3 v) {
  int n = gRegionSize;
  ivec3 local = v - gRegionBase;
  if (any(lessThan(local, ivec3(0))) || any(greaterThanEqual(local, ivec3(n)))) {
    ivec3 shift = ivec3(greaterThanEqual(local, ivec3(n))) - ivec3(lessThan(local, ivec3(0)));
    gRegionBase += shift * n;
    gRegionIndex += gRegionStep;
    gCachedSlot = listedSlot(gRegionIndex);
  }
}

// Index of a voxel of the walk (after followRegion saw it).
bool voxelIndex(ivec3 v, out uint index) {
  if (gCachedSlot < 0) {
    if (gCachedSlot != kSlotNotInChunk) gMissingRegions += 1u;
    return false;
  }
  int n = gRegionSize;
  ivec3 local = v - gRegionBase;
  index = uint(gCachedSlot) * uint(n * n * n) + uint(local.x + n * (local.y + n * local.z));
  return true;
}

// Ray r's sample voxel (gRay.end): its region's cache slot and its index within the region;
// false when the region belongs to another chunk of the batch (or is missing: counted).
bool sampleVoxelSlot(uint r, out uint slot, out uint local) {
  int n = pc.p.regionSize;
  int found = sampleSlot(r);
  slot = uint(max(found, 0));
  ivec3 inRegion = gRay.end - regionOfVoxel(gRay.end, n) * n;
  local = uint(inRegion.x + n * (inRegion.y + n * inRegion.z));
  if (found < 0 && found != kSlotNotInChunk) gMissingRegions += 1u;
  return found >= 0;
}

// Unobserved (+inf) starts from 0; then add and clamp. Same as voxen::updatedValue.
float updatedValue(float value, float delta) {
  float base = isinf(value) ? 0.0 : value;
  precise float sum = base + delta;
  return min(max(sum, gClampMin), gClampMax);
}

uint gUpdates = 0u;
uint gDropped = 0u;
uint gRetries = 0u;  // compare-and-swaps that lost a race (contention, e.g. near the sensor)

// The sequential order's scratch: entry i of ordered array `array` (kOrdered*).
uint ordered(uint array, uint i) { return gOrdered.v[array * gOrderCapacity + i]; }
void setOrdered(uint array, uint i, uint value) { gOrdered.v[array * gOrderCapacity + i] = value; }

// The pool index of the voxel a hit key names (its batch region's slot, its index there).
uint poolIndexOfKey(uint key) {
  uint n = uint(gRegionSize);
  uint regionVoxels = n * n * n;
  uint batchRegion = key / regionVoxels;
  uint slot = gOrdered.v[orderedSlotOfBatch(gOrderCapacity, pc.p.slotCount) + batchRegion];
  return slot * regionVoxels + (key - batchRegion * regionVoxels);
}

// The ray whose misses this invocation applies (the miss pass sets it).
uint gRayIndex = 0u;

// A miss by ray `ray` on the voxel whose run of hits starts at sorted position p: counted
// in the gap between the hits of the rays before it and those after, for hit_resolve.comp.
// Positions from p on whose packed entry (key << 32 | ray) is below (key << 32 | ray) hold
// the voxel's hits by earlier rays: a prefix, since the sort keeps a voxel's rays in input
// order and later keys are larger. Its end is found by a galloping search from p (runs are
// short, and a few probes find most gaps), then a binary search; one 64-bit load a probe.
void countOrderedMiss(uint p, uint ray) {
  uint64_t bound64 = (gOrderedPacked.v[p] & 0xFFFFFFFF00000000ul) | uint64_t(ray);
  uint n = pc.p.rayCount;
  uint first = p;  // the prefix holds on [p, first)
  uint bound = n;  // and ends at bound (or bound == n)
  uint step = 1u;
  for (uint i = 0u; i < 24u; ++i) {
    uint probe = first + step - 1u;
    if (probe >= n) break;
    if (gOrderedPacked.v[probe] >= bound64) {
      bound = probe;
      break;
    }
    first = probe + 1u;
    step *= 2u;
  }
  for (uint i = 0u; i < 24u && first < bound; ++i) {
    uint mid = (first + bound) / 2u;
    if (gOrderedPacked.v[mid] < bound64) first = mid + 1u;
    else bound = mid;
  }
  uint hitsBefore = first - p;
  if (hitsBefore == 0u) atomicAdd(gOrdered.v[kOrderedLeading * gOrderCapacity + p], 1u);
  else atomicAdd(gOrdered.v[kOrderedTrailing * gOrderCapacity + p + hitsBefore - 1u], 1u);
}

// The miss pass's part: list a miss that a later pass applies, as (payload, this ray): the
// sequential order's misses on voxels with hits (payload: the first sorted position of the
// voxel's run; ordered_misses.comp) and NDT's misses on voxels with a Gaussian (payload:
// the voxel's pool index; ndt_miss_gather.comp). When the list is full the miss is not listed
// (nor any later one: the count only grows) and the miss pass handles the rest itself
// after its walk (integrate_miss.comp: countUnlistedMisses, applyUnlistedNdtMisses).
uint gListedMarkers = 0u;
bool gMarkersUnlisted = false;
void deferMiss(uint payload) {
  uint stripe = gl_WorkGroupID.x % kDeferredStripes;
  uint slot = atomicAdd(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], 1u);
  if (slot < gStripeCapacity) {
    gMissList.v[stripe * gStripeCapacity + slot] = packUint2x32(uvec2(payload, gRayIndex));
    gListedMarkers += 1u;
  } else {
    gMarkersUnlisted = true;
  }
}

void deferOrderedMiss(uint marker) {
  deferMiss(marker - kOrderedMarker);
  gUpdates += 1u;
}

void applyDeltaFrom(uint index, float delta, uint old) {
  // Only the miss pass meets markers: they exist between hit_mark and hit_resolve.
  if ((gFlags & kPassSequential) != 0u && old >= kOrderedMarker) {
    deferOrderedMiss(old);
    return;
  }
  for (uint i = 0u; i < kMaxCasRetries; ++i) {
    uint desired = floatBitsToUint(updatedValue(uintBitsToFloat(old), delta));
    if (desired == old) {  // saturated: nothing to write
      gUpdates += 1u;
      return;
    }
    uint seen = atomicCompSwap(gOccupancy.v[index], old, desired);
    if (seen == old) {
      gUpdates += 1u;
      return;
    }
    gRetries += 1u;
    old = seen;
  }
  gDropped += 1u;
}

void applyDelta(uint index, float delta) { applyDeltaFrom(index, delta, gOccupancy.v[index]); }

uint64_t traversalUnits(float tEnter, float tExit, float len) {
  precise float voxels = max(0.0, tExit - tEnter) * len;
  precise float scaled = voxels * 65536.0 + 0.5;
  return uint64_t(scaled);
}

float rayLength() {
  precise float sq = gRay.d.x * gRay.d.x + gRay.d.y * gRay.d.y + gRay.d.z * gRay.d.z;
  return sqrt(sq);
}

// The layers' updates that commute (any order gives the same sums and maxima). Under NDT the
// voxel mean is folded with the covariance (ndt_fold.comp), and NDT-TM counts hits and
// misses by its own rule.
void applyLayers(uint index, bool hit, float tEnter, float tExit) {
  if ((gFlags & kLayerHitMiss) != 0u && (gFlags & kPassNdtTm) == 0u) {
    if (hit) atomicAdd(gHitMiss.v[index].x, 1u);
    else atomicAdd(gHitMiss.v[index].y, 1u);
  }
  if ((gFlags & kLayerTraversal) != 0u) atomicAdd(gTraversal.v[index], traversalUnits(tEnter, tExit, rayLength()));
  if ((gFlags & kLayerTouchTime) != 0u) atomicMax(gTouch.v[index], packUint2x32(gRay.touchTime));
  if (hit && (gFlags & kLayerVoxelMean) != 0u && (gFlags & kPassNdt) == 0u) {
    atomicAdd(gMean.v[index].x, 1u);
    atomicAdd(gMean.v[index].y, gRay.meanPacked & 1023u);
    atomicAdd(gMean.v[index].z, (gRay.meanPacked >> 10) & 1023u);
    atomicAdd(gMean.v[index].w, (gRay.meanPacked >> 20) & 1023u);
  }
}

// One atomic per subgroup for the counters, into one of kCounterStripes copies chosen by
// workgroup (the host adds the copies up): every lane's atomic on the same address is a
// lock xadd on lavapipe, and one shared cache line bounced between its worker threads (or
// a real GPU's SMs) costs more than the rest of the hit pass. Each copy is 64 bytes apart.
uint gFoldInvocations = 0u, gSampleVoxels = 0u;  // kPassNdt: the hit fold's
void flushCounters() {
  uint updates = subgroupAdd(gUpdates);
  uint dropped = subgroupAdd(gDropped);
  uint missing = subgroupAdd(gMissingRegions);
  uint rewalks = subgroupAdd(gMarkersUnlisted ? 1u : 0u);
  uint retries = subgroupAdd(gRetries);
  uint stripe = (gl_WorkGroupID.x % kCounterStripes) * kCounterStride;
  if (subgroupElect()) {
    Uint64Array counters = Uint64Array(pc.p.counters);
    if (updates > 0u) atomicAdd(counters.v[stripe + kCounterUpdates], uint64_t(updates));
    if (dropped > 0u) atomicAdd(counters.v[stripe + kCounterDropped], uint64_t(dropped));
    if (missing > 0u) atomicAdd(counters.v[stripe + kCounterMissingRegions], uint64_t(missing));
    if (rewalks > 0u) atomicAdd(counters.v[stripe + kCounterRewalks], uint64_t(rewalks));
    if (retries > 0u) atomicAdd(counters.v[stripe + kCounterCasRetries], uint64_t(retries));
  }
  if ((gFlags & kPassNdt) != 0u) {
    uint invocations = subgroupAdd(gFoldInvocations);
    uint voxels = subgroupAdd(gSampleVoxels);
    if (subgroupElect()) {
      Uint64Array counters = Uint64Array(pc.p.counters);
      if (invocations > 0u) atomicAdd(counters.v[stripe + kCounterNdtFoldInvocations], uint64_t(invocations));
      if (voxels > 0u) atomicAdd(counters.v[stripe + kCounterNdtSampleVoxels], uint64_t(voxels));
    }
  }
}

#include "ray_walk.glsl"

#endif

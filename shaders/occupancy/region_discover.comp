#version 460
// Region discovery, first pass: one invocation per ray writes the ray's segments (the
// (ray, segment) pairs the miss pass runs over, from GpuRay::segmentBase), walks the ray at
// region resolution in the order regionsOnRay (ray_walk.cpp) gives, inserts every region
// into the batch's hash set and writes the set entry of each into the ray's region list;
// the last one is also stored as the ray's sample region. The host no longer walks rays.
// Before anything else it adds the ray's part offsets to its record (batch_assembly_shared.h).
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "../map/region_table.glsl"
#include "batch_assembly_shared.h"
#include "crossing_time.glsl"
#include "discovery_shared.h"
#include "occupancy_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { DiscoveryPush p; } pc;

Uint64Array gSet;
uint gSetMask;
ivec3 gOrigin;

// The set entry holding `key`, inserted if absent; kDiscoveryMaxProbe probes at most, then
// the overflow is counted (the host grows the set and runs discovery again).
uint insertRegion(ivec3 key) {
  uvec3 field = uvec3(key - gOrigin + ivec3(kDiscoveryBias));
  uint64_t packed = uint64_t(field.x) | (uint64_t(field.y) << 21) | (uint64_t(field.z) << 42);
  uint h = hashRegion(key) & gSetMask;
  for (uint probe = 0u; probe <= kDiscoveryMaxProbe; ++probe) {
    // A plain load first: most rays find their regions already inserted by their
    // neighbours, and a compare-and-swap on a shared entry costs every lane an atomic.
    uint64_t current = gSet.v[h];
    if (current == kEmptyRegionKey) current = atomicCompSwap(gSet.v[h], kEmptyRegionKey, packed);
    if (current == kEmptyRegionKey || current == packed) return h;
    h = (h + 1u) & gSetMask;
  }
  atomicAdd(UintArray(pc.p.list).v[kDiscoveryOverflow], 1u);
  return 0u;
}

void main() {
  uint r = voxenThreadIndex();
  if (r >= pc.p.rayCount) return;
  gSet = Uint64Array(pc.p.set);
  gSetMask = pc.p.setMask;
  gOrigin = pc.p.origin.xyz;
  int n = pc.p.origin.w;
  // The walk's fields of GpuRay as 64-bit words (o.xy, o.z, d.xy, d.z, start.xy,
  // (start.z, flags), end.xy, (end.z, segments), (slotBase, segmentBase)).
  Uint64Array words = Uint64Array(pc.p.rays);
  uint base = r * 10u;
  uvec2 q0 = unpackUint2x32(words.v[base + 0u]), q1 = unpackUint2x32(words.v[base + 1u]);
  uvec2 q2 = unpackUint2x32(words.v[base + 2u]), q3 = unpackUint2x32(words.v[base + 3u]);
  uvec2 q4 = unpackUint2x32(words.v[base + 4u]), q5 = unpackUint2x32(words.v[base + 5u]);
  uvec2 q6 = unpackUint2x32(words.v[base + 6u]), q7 = unpackUint2x32(words.v[base + 7u]);
  uvec2 q8 = unpackUint2x32(words.v[base + 8u]);
  if (pc.p.partCount > 0u) {
    // The offsets of this ray's part (batch_assembly_shared.h), added once and written back
    // for the passes after discovery. Each entry is read whole, as one uvec4.
    Uvec4Array parts = Uvec4Array(pc.p.parts);
    uint low = 0u, high = pc.p.partCount - 1u;
    while (low < high) {
      uint mid = (low + high + 1u) >> 1u;
      uvec4 entry = parts.v[mid];
      if (entry.x <= r) low = mid; else high = mid - 1u;
    }
    uvec4 part = parts.v[low];
    q8 += part.yz;
    words.v[base + 8u] = packUint2x32(q8);
  }
  vec3 o = uintBitsToFloat(uvec3(q0, q1.x));
  // 1/d once per ray: each region face's t is then crossingAt (crossing_time.glsl), the voxel
  // walk's own expression, so that the region order is the voxel walk's.
  vec3 invD = crossingReciprocal(uintBitsToFloat(uvec3(q2, q3.x)));
  ivec3 s = ivec3(q4, q5.x);
  ivec3 e = ivec3(q6, q7.x);
  uint segments = q7.y;
  uint slotBase = q8.x;
  uint segmentBase = q8.y;

  Uvec2Array segmentList = Uvec2Array(pc.p.segments);
  for (uint k = 0u; k < segments; ++k) segmentList.v[segmentBase + k] = uvec2(r, k);

  ivec3 stepV = sign(e - s);
  ivec3 faces = abs(e - s);  // voxel faces crossed per axis
  ivec3 within = offsetInRegion(s, n);
  ivec3 key = regionOfVoxel(s, n);
  // The index of the next region face per axis (regionsOnRay: stepping up, the first
  // multiple of n above s; stepping down, the first at or below s).
  ivec3 next = mix(within, ivec3(n - 1) - within, greaterThan(stepV, ivec3(0)));
  uint regionCount = regionCountOfRay(s, e, n);
  UintArray slots = UintArray(pc.p.raySlots);
  uint entry = insertRegion(key);
  slots.v[slotBase] = entry;
  for (uint k = 1u; k < regionCount; ++k) {
    // The earliest region face among the axes (ties to the lower axis, as on the host).
    float tx = (stepV.x != 0 && next.x < faces.x) ? crossingAt(o.x, invD.x, stepV.x, next.x) : uintBitsToFloat(0x7f800000u);
    float ty = (stepV.y != 0 && next.y < faces.y) ? crossingAt(o.y, invD.y, stepV.y, next.y) : uintBitsToFloat(0x7f800000u);
    float tz = (stepV.z != 0 && next.z < faces.z) ? crossingAt(o.z, invD.z, stepV.z, next.z) : uintBitsToFloat(0x7f800000u);
    int axis = (tx <= ty && tx <= tz) ? 0 : (ty <= tz ? 1 : 2);
    ivec3 sel = ivec3(equal(ivec3(axis), ivec3(0, 1, 2)));
    key += sel * stepV;
    next += sel * n;
    entry = insertRegion(key);
    slots.v[slotBase + k] = entry;
  }
  slots.v[r] = entry;  // the sample voxel's region: the walk's last
}

// The NDT passes' view of a voxel (kPassNdt): its layers gathered into an NdtVoxel and
// written back, and the free-space update of the miss pass. The formulas are ndt_shared.h's,
// which the CPU reference runs too. Included after map_access.glsl.
#ifndef VOXEN_OCCUPANCY_NDT_ACCESS_GLSL
#define VOXEN_OCCUPANCY_NDT_ACCESS_GLSL

NdtCovariance loadCovariance(uint index) {
  uvec2 w0 = unpackUint2x32(gCovariance.v[index * 3u]);
  uvec2 w1 = unpackUint2x32(gCovariance.v[index * 3u + 1u]);
  uvec2 w2 = unpackUint2x32(gCovariance.v[index * 3u + 2u]);
  NdtCovariance c;
  c.s00 = uintBitsToFloat(w0.x);
  c.s10 = uintBitsToFloat(w0.y);
  c.s11 = uintBitsToFloat(w1.x);
  c.s20 = uintBitsToFloat(w1.y);
  c.s21 = uintBitsToFloat(w2.x);
  c.s22 = uintBitsToFloat(w2.y);
  return c;
}

void storeCovariance(uint index, NdtCovariance c) {
  gCovariance.v[index * 3u] = packUint2x32(uvec2(floatBitsToUint(c.s00), floatBitsToUint(c.s10)));
  gCovariance.v[index * 3u + 1u] = packUint2x32(uvec2(floatBitsToUint(c.s11), floatBitsToUint(c.s20)));
  gCovariance.v[index * 3u + 2u] = packUint2x32(uvec2(floatBitsToUint(c.s21), floatBitsToUint(c.s22)));
}

// The whole voxel (the hit fold reads it once per run and writes it once).
NdtVoxel loadNdtVoxel(uint index) {
  NdtVoxel v;
  v.occupancy = uintBitsToFloat(gOccupancy.v[index]);
  uvec4 mean = gMean.v[index];  // whole, once (lavapipe: see DESIGN.md)
  v.count = mean.x;
  v.sumX = mean.y;
  v.sumY = mean.z;
  v.sumZ = mean.w;
  v.cov = loadCovariance(index);
  v.hits = 0u;
  v.misses = 0u;
  v.intensity.mean = 0.0;
  v.intensity.variance = 0.0;
  if ((gFlags & kPassNdtTm) != 0u) {
    uvec2 hm = gHitMiss.v[index];
    v.hits = hm.x;
    v.misses = hm.y;
    uvec2 it = gIntensity.v[index];
    v.intensity.mean = uintBitsToFloat(it.x);
    v.intensity.variance = uintBitsToFloat(it.y);
  }
  return v;
}

void storeNdtVoxel(uint index, NdtVoxel v) {
  gOccupancy.v[index] = floatBitsToUint(v.occupancy);
  gMean.v[index] = uvec4(v.count, v.sumX, v.sumY, v.sumZ);
  storeCovariance(index, v.cov);
  if ((gFlags & kPassNdtTm) != 0u) {
    gHitMiss.v[index] = uvec2(v.hits, v.misses);
    gIntensity.v[index] = uvec2(floatBitsToUint(v.intensity.mean), floatBitsToUint(v.intensity.variance));
  }
}

// The ray of gRay in the frame of voxel v.
NdtSegment ndtSegmentOfRay(ivec3 v) {
  ivec3 r = gRay.start - v;
  return ndtSegmentInVoxel(gRay.o.x, gRay.o.y, gRay.o.z, gRay.d.x, gRay.d.y, gRay.d.z, r.x, r.y, r.z, gNdt.resolution);
}

NdtMissUpdate plainMissUpdate(float missValue) {
  NdtMissUpdate u;
  u.delta = missValue;
  u.tmMiss = true;
  return u;
}

// The free-space update of voxel v (pool index `index`, `count` samples) that gRay passes
// through. The mean and covariance do not change during the miss pass (the hit fold runs
// after it), so reading them here is race-free.
NdtMissUpdate ndtMissOfVoxel(ivec3 v, uint index, uint count, float missValue) {
  NdtVoxel vox;
  vox.count = count;
  uvec4 mean = gMean.v[index];
  vox.sumX = mean.y;
  vox.sumY = mean.z;
  vox.sumZ = mean.w;
  vox.cov = loadCovariance(index);
  return ndtMissUpdate(vox, gNdt, ndtSegmentOfRay(v), missValue);
}

// An overflowing chunk's free-space sums (ndt_miss_order.h: ndtMissSums), one signed 64-bit
// integer per pool voxel, added to with uint64 atomics (two's complement).
Uint64Array ndtMissSumArray() {
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  return Uint64Array(pc.p.ndt + uint64_t(base + ndtMissSums(gNdt.levels, gOrderCapacity, gNdt.foldLimit)) * 4u);
}

// A free-space update's term in the sums, in units of 2^-32 log-odds: the delta (never
// positive, but for a device log's last bits) clamped to the clamp range's width, beyond
// which any update ends at the clamp anyway, and to 256 log-odds, so that a batch's terms (at
// most one per ray and voxel, 2^22 rays) cannot overflow the sum; exact for |delta| >= 2^-9,
// truncated below (less than 2^-32 per term).
int64_t ndtMissTerm(float delta) {
  float limit = min(gClampMax - gClampMin, 256.0);
  return int64_t(clamp(delta, -limit, limit) * 4294967296.0);
}

// The log-odds change of a voxel's summed terms: one conversion, rounded once, the same on
// every device. Every free-space delta lowers (or keeps) a value, so adding the sum and
// clamping once ends where adding the deltas one by one with a clamp after each would, up to
// the float rounding of the partial sums.
float ndtMissSumDelta(int64_t sum) { return float(sum) * (1.0 / 4294967296.0); }

// Adds the free-space update of voxel v (pool index `index`, `count` samples, at least the
// threshold) that gRay passes through to the voxel's sum: the sums walk of a chunk whose list
// overflowed (integrate_miss.comp, kSumWalk).
void addNdtMissToSum(ivec3 v, uint index, uint count, float missValue) {
  NdtMissUpdate u = ndtMissOfVoxel(v, index, count, missValue);
  int64_t term = ndtMissTerm(u.delta);
  if (term != 0l) atomicAdd(ndtMissSumArray().v[index], uint64_t(term));
  gUpdates += 1u;
  if ((gFlags & kPassNdtTm) != 0u && u.tmMiss) atomicAdd(gHitMiss.v[index].y, 1u);
}

#endif

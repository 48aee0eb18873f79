// Lidar rays into the TSDF (engine/tsdf/src/ray, shaders/tsdf/tsdf_ray_*.comp; the model is in
// voxen/tsdf/tsdf_rays.hpp): the ray's band, its integer voxel walk, a voxel's signed distance
// along the ray and a scan's fold, as one definition that the CPU reference and the GPU passes
// both run, and the passes' push constants.
//
// Everything is an integer, in tsdf_shared.h's units: positions in kTsdfFine units per voxel,
// weights in kTsdfWeightUnit per measurement; the divisions are tsdf_shared.h's exact ones
// (float estimates finished in integers: the integer quotient on every device).
#ifndef VOXEN_TSDF_RAY_SHARED_H
#define VOXEN_TSDF_RAY_SHARED_H

#include "../common/shared.h"
#include "tsdf_shared.h"

VOXEN_SHARED_BEGIN

// A ray as the passes take it: the sensor origin and the hit, fine units (world voxel
// coordinates x 65536), packed by the host from metres (tsdfPackRays); |hit - origin| is at most
// kTsdfMaxDepthFine per axis, so every product below fits 63 bits.
struct TsdfRay {
  int64_t ox, oy, oz;
  int64_t hx, hy, hz;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfRay) == 48)

// The ray's range R = floor(|hit - origin|), fine units (0: no measurement).
VOXEN_MATH int64_t tsdfRayRange(TsdfRay r) {
  int64_t dx = r.hx - r.ox, dy = r.hy - r.oy, dz = r.hz - r.oz;
  return int64_t(tsdfIsqrt(uint64_t(dx * dx) + uint64_t(dy * dy) + uint64_t(dz * dz)));
}

// The point at distance t (fine units) along the ray from its origin, axis by axis:
// o + floor(d t / R) for the axis' origin o and extent d (R > 0, t >= 0).
VOXEN_MATH int64_t tsdfRayPointAxis(int64_t o, int64_t d, int64_t t, int64_t range) {
  return o + tsdfFloorDivExact(d * t, range);
}

// The walked segment [tsdfRayWalkStart, tsdfRayWalkEnd] along the ray: the band
// [R - truncation, R + truncation] widened by one voxel at each end (more than the half
// diagonal of a voxel: every voxel the ray passes whose centre projects into the band is on the
// segment), never behind the origin.
VOXEN_FUNCTION int64_t tsdfRayWalkStart(int64_t range, int64_t truncation) {
  return range - truncation - kTsdfFine > 0 ? range - truncation - kTsdfFine : int64_t(0);
}
VOXEN_FUNCTION int64_t tsdfRayWalkEnd(int64_t range, int64_t truncation) { return range + truncation + kTsdfFine; }

// The voxels a segment A -> B (fine units) passes, in order: an integer DDA. The next face
// crossed along an axis is at t = n / d of the segment (n: fine units from A to that face along
// the axis, d: the segment's extent along it); the walk crosses the axis with the smallest t,
// compared by cross-multiplying (exact), the lowest axis first on a tie, and makes exactly as
// many crossings per axis as the voxels of A and B lie apart (so it ends in B's voxel).
// n, d <= 2^24 (the segment is at most 130 voxels): the products fit 63 bits.
struct TsdfRayWalk {
  int vx, vy, vz;        // the voxel
  int sx, sy, sz;        // the step per axis: -1, 0 or 1
  int lx, ly, lz;        // crossings left per axis
  int64_t nx, ny, nz;    // fine units from A to the next face per axis
  int64_t dx, dy, dz;    // |B - A| per axis
};

VOXEN_FUNCTION int tsdfVoxelOf(int64_t p) { return int(p >> kTsdfFineBits); }
VOXEN_FUNCTION int tsdfAbsInt(int v) { return v < 0 ? -v : v; }
VOXEN_FUNCTION int64_t tsdfAbs64(int64_t v) { return v < 0 ? -v : v; }
VOXEN_FUNCTION int tsdfSign64(int64_t v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }
// Fine units from a (in voxel va) to the voxel's face in direction s (0 when s is 0).
VOXEN_FUNCTION int64_t tsdfFirstFace(int64_t a, int va, int s) {
  return s > 0 ? (int64_t(va + 1) << kTsdfFineBits) - a : (s < 0 ? a - (int64_t(va) << kTsdfFineBits) : int64_t(0));
}

VOXEN_FUNCTION TsdfRayWalk tsdfRayWalkBegin(int64_t ax, int64_t ay, int64_t az, int64_t bx, int64_t by, int64_t bz) {
  TsdfRayWalk w;
  w.vx = tsdfVoxelOf(ax);
  w.vy = tsdfVoxelOf(ay);
  w.vz = tsdfVoxelOf(az);
  w.sx = tsdfSign64(bx - ax);
  w.sy = tsdfSign64(by - ay);
  w.sz = tsdfSign64(bz - az);
  w.lx = tsdfAbsInt(tsdfVoxelOf(bx) - w.vx);
  w.ly = tsdfAbsInt(tsdfVoxelOf(by) - w.vy);
  w.lz = tsdfAbsInt(tsdfVoxelOf(bz) - w.vz);
  w.nx = tsdfFirstFace(ax, w.vx, w.sx);
  w.ny = tsdfFirstFace(ay, w.vy, w.sy);
  w.nz = tsdfFirstFace(az, w.vz, w.sz);
  w.dx = tsdfAbs64(bx - ax);
  w.dy = tsdfAbs64(by - ay);
  w.dz = tsdfAbs64(bz - az);
  return w;
}

// The axis the walk crosses next (0, 1, 2), or -1 when it is in B's voxel.
VOXEN_FUNCTION int tsdfRayWalkAxis(TsdfRayWalk w) {
  int best = -1;
  int64_t bn = 0, bd = 1;
  if (w.lx > 0) {
    best = 0;
    bn = w.nx;
    bd = w.dx;
  }
  if (w.ly > 0 && (best < 0 || w.ny * bd < bn * w.dy)) {
    best = 1;
    bn = w.ny;
    bd = w.dy;
  }
  if (w.lz > 0 && (best < 0 || w.nz * bd < bn * w.dz)) best = 2;
  return best;
}

// The walk after crossing `axis`.
VOXEN_FUNCTION TsdfRayWalk tsdfRayWalkStep(TsdfRayWalk w, int axis) {
  if (axis == 0) {
    w.vx += w.sx;
    w.lx -= 1;
    w.nx += kTsdfFine;
  } else if (axis == 1) {
    w.vy += w.sy;
    w.ly -= 1;
    w.ny += kTsdfFine;
  } else {
    w.vz += w.sz;
    w.lz -= 1;
    w.nz += kTsdfFine;
  }
  return w;
}

// The signed distance of voxel (vx, vy, vz) along the ray: R - t, with t = round((c - o) . d / R)
// the projection of the voxel's centre c onto the ray (fine units; positive in front of the hit).
VOXEN_MATH int64_t tsdfRaySdf(int vx, int vy, int vz, TsdfRay r, int64_t range) {
  int64_t half_ = kTsdfFine / 2;
  int64_t cx = (int64_t(vx) << kTsdfFineBits) + half_ - r.ox;
  int64_t cy = (int64_t(vy) << kTsdfFineBits) + half_ - r.oy;
  int64_t cz = (int64_t(vz) << kTsdfFineBits) + half_ - r.oz;
  int64_t dot = cx * (r.hx - r.ox) + cy * (r.hy - r.oy) + cz * (r.hz - r.oz);
  return range - tsdfRoundDivExact(dot, range);
}

// The walk of a ray's segment (range R > 0).
VOXEN_MATH TsdfRayWalk tsdfRayWalkOf(TsdfRay r, int64_t range, int64_t truncation) {
  int64_t t0 = tsdfRayWalkStart(range, truncation), t1 = tsdfRayWalkEnd(range, truncation);
  int64_t dx = r.hx - r.ox, dy = r.hy - r.oy, dz = r.hz - r.oz;
  return tsdfRayWalkBegin(tsdfRayPointAxis(r.ox, dx, t0, range), tsdfRayPointAxis(r.oy, dy, t0, range),
                          tsdfRayPointAxis(r.oz, dz, t0, range), tsdfRayPointAxis(r.ox, dx, t1, range),
                          tsdfRayPointAxis(r.oy, dy, t1, range), tsdfRayPointAxis(r.oz, dz, t1, range));
}

// The weight (kTsdfWeightUnit units) of the ray's measurement sdf at a walked voxel: 0 (none)
// outside the band [-truncation, truncation], else as the weighting gives (tsdf_shared.h).
VOXEN_FUNCTION uint tsdfRayWeightAt(int64_t sdf, int64_t truncation, uint weighting) {
  return sdf < -truncation || sdf > truncation ? 0u : tsdfWeightOf(sdf, truncation, weighting);
}

// A scan's fold into one voxel: its rays' measurements there summed (sum of w sdf, sum of w),
// folded once as one measurement, the weighted mean with weight sum(w) capped at maxWeight.
VOXEN_MATH int64_t tsdfScanMean(int64_t sum, uint64_t weight) { return tsdfRoundDivExact(sum, int64_t(weight)); }
VOXEN_FUNCTION uint tsdfScanWeight(uint64_t weight, uint maxWeight) {
  return weight > uint64_t(maxWeight) ? maxWeight : uint(weight);
}

// The passes' block hash set: packed block keys (21 bits per axis, offset by 2^20, never 0) in
// a table of 2^k slots probed linearly; a key's list index beside it.
// A key lies within kTsdfRayMaxProbe slots of its hash (discovery retries with a larger table
// when one does not), so a lookup probes at most that many.
VOXEN_CONST(uint, kTsdfRayMaxProbe, 64u)
VOXEN_FUNCTION uint64_t tsdfRayBlockKey(int bx, int by, int bz) {
  return (uint64_t(bx + (1 << 20)) << 42) | (uint64_t(by + (1 << 20)) << 21) | uint64_t(bz + (1 << 20));
}
// Every bit of the key reaches the slot (murmur3's 64-bit finaliser, as tsdf_discover.comp).
VOXEN_FUNCTION uint tsdfRayBlockHash(uint64_t key) {
  uint64_t k = key;
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdul;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ul;
  k ^= k >> 33;
  return uint(k);
}

// Common to the ray passes: the scan's rays and their band.
struct TsdfRayScanPush {
  VOXEN_ADDRESS rays;       // TsdfRay[rayCount]
  uint rayCount;
  uint weighting;           // kTsdfWeightConstant or kTsdfWeightLinearDropOff
  int64_t truncation;       // fine units
};
VOXEN_SHARED_ASSERT(sizeof(TsdfRayScanPush) == 24)

// Discovery: one thread per ray; each block holding a voxel the ray measures goes into the set
// (a new one listed once, its list index stored beside it).
struct TsdfRayDiscoverPush {
  TsdfRayScanPush scan;
  VOXEN_ADDRESS table;      // uint64_t[tableMask + 1]: keys (0: empty)
  VOXEN_ADDRESS indices;    // uint[tableMask + 1]: each key's list index
  VOXEN_ADDRESS list;       // uint64_t[listCapacity]: the keys, in no particular order
  VOXEN_ADDRESS counters;   // uint[2]: keys found (may pass listCapacity), 1 when a key found no free slot
  uint tableMask;
  uint listCapacity;
  uint maxProbe;            // kTsdfRayMaxProbe
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfRayDiscoverPush) == 72)

// Accumulation: one thread per ray; every voxel it measures adds w sdf and w to the
// accumulator of its block, when the block is in this chunk (chunkFirst <= its sorted position
// < chunkFirst + chunkBlocks). Accumulators: int64 sum, uint64 weight per voxel.
struct TsdfRayAccumulatePush {
  TsdfRayScanPush scan;
  VOXEN_ADDRESS table;
  VOXEN_ADDRESS indices;
  VOXEN_ADDRESS order;      // uint[list index]: the block's sorted position
  VOXEN_ADDRESS sums;       // uint64_t[2 * kTsdfBlockVoxels * chunkBlocks]
  uint tableMask;
  uint chunkFirst;
  uint chunkBlocks;
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfRayAccumulatePush) == 72)

// The fold: kTsdfBlockVoxels threads per block of the chunk; a voxel with a weight sum folds
// the scan's measurement into the cache's pool.
struct TsdfRayFoldPush {
  VOXEN_ADDRESS blocks;     // ivec4 per block: block key x, y, z, and the region's cache slot
  VOXEN_ADDRESS sums;
  VOXEN_ADDRESS tsdf;       // the cache's tsdf pool: TsdfVoxel[slot * voxelsPerRegion + voxel]
  uint blockCount;
  int regionSize;
  uint maxWeight;           // weight units
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfRayFoldPush) == 40)

VOXEN_SHARED_END

#endif

// What the clearance passes share: the push constants, the block layout, which voxels are
// obstacles, and the one-dimensional lower envelope of the exact transform (the same steps,
// in the same order, as engine/clearance/internal/voxen/clearance/distance_envelope.hpp):
// with CLEARANCE_VOXEL_SQUARES=1 (one scale on every axis) in integer squared voxel
// distances, compared by cross-multiplication, with no division or root per voxel (the
// clearance in metres from the host's table, ClearancePush::metres); otherwise in float
// metres^2 weighted per axis, where each parabola intersection is an exact division
// (exactDiv: float64 on devices that have it) and each output voxel an exact root.
#ifndef VOXEN_CLEARANCE_COMMON_GLSL
#define VOXEN_CLEARANCE_COMMON_GLSL

#extension GL_GOOGLE_include_directive : require
#ifndef CLEARANCE_VOXEL_SQUARES
#define CLEARANCE_VOXEL_SQUARES 0
#endif
#include "../common/buffers.glsl"
#include "../map/layer_table.h"
#include "../map/region_table.glsl"
#include "clearance_shared.h"

layout(push_constant) uniform Push { ClearancePush p; } pc;

ivec3 blockSize() {
  int n = pc.p.regionSize;
  return ivec3(n + 2 * pc.p.padX, n + 2 * pc.p.padY, n + 2 * pc.p.padZ);
}

// The exact transform's compact field: x inside the region (0 to n - 1), y and z over the
// whole block.
uint fieldIndex(uint block, int x, int y, int z, ivec3 size) {
  return uint(x) + uint(pc.p.regionSize) * (uint(y) + uint(size.y) * (uint(z) + uint(size.z) * block));
}

#if CLEARANCE_VOXEL_SQUARES

// One line's lower envelope: the parabolas' roots, the value at each root (so that the
// output can overwrite the line in place), and where each takes over from the one before,
// as the numerator of a quotient whose denominator is 2 (root_k - root_k-1).
int gRoot[kMaxBlockEdge];
int gRootValue[kMaxBlockEdge];
int gNumerator[kMaxBlockEdge];

// The line of n squared voxel distances at field indices first + step * q (q = 0 .. n - 1)
// gets the lower envelope d[q] = min over p of (q - p)^2 + f[p], exactly (int32 bounds: see
// distance_envelope.hpp); values above maxSquared are no obstacle within the range.
// d[from .. to - 1] are written to dst.v[outFirst + outStep * (q - from)], as the clearance
// in metres (the table, bits) when `clearance`, else as squared distances (kNoVoxelSquare
// past the range).
void squaredDistanceEnvelope(UintArray field, uint first, uint step, int n, uint maxSquared, UintArray dst, uint outFirst,
                             uint outStep, int from, int to, bool clearance) {
  int k = -1;
  for (int q = 0; q < n; ++q) {
    uint f = field.v[first + step * uint(q)];
    if (f > maxSquared) continue;
    int fq = int(f) + q * q;
    while (k > 0) {
      int r = gRoot[k];
      int numerator = fq - (gRootValue[k] + r * r);
      if (numerator * (r - gRoot[k - 1]) > gNumerator[k] * (q - r)) break;
      --k;
    }
    int numerator = k >= 0 ? fq - (gRootValue[k] + gRoot[k] * gRoot[k]) : 0;
    ++k;
    gRoot[k] = q;
    gRootValue[k] = int(f);
    gNumerator[k] = numerator;
  }
  FloatArray metres = FloatArray(pc.p.metres);
  int j = 0;
  for (int q = from; q < to; ++q) {
    uint value = kNoVoxelSquare;
    if (k >= 0) {
      while (j < k && gNumerator[j + 1] < 2 * q * (gRoot[j + 1] - gRoot[j])) ++j;
      int r = gRoot[j];
      uint d = uint((q - r) * (q - r) + gRootValue[j]);
      if (d <= maxSquared) value = d;
    }
    uint word = value;
    if (clearance) word = floatBitsToUint(value != kNoVoxelSquare ? metres.v[value] : kNoObstacleInRange);
    dst.v[outFirst + outStep * uint(q - from)] = word;
  }
}

#else

// One line's lower envelope: the parabolas' roots, where each takes over, and the value at
// each root (so that the output can overwrite the line in place).
int gRoot[kMaxBlockEdge];
float gBoundary[kMaxBlockEdge];
float gRootValue[kMaxBlockEdge];

// The line of n values at field indices first + step * q (q = 0 .. n - 1) gets the lower
// envelope d[q] = min over p of w (q - p)^2 + f[p]: d[from .. to - 1] are written to
// dst.v[outFirst + outStep * (q - from)], as clearance (metres, clearanceOf) when
// `clearance`, else as squared distances (the line itself may be `dst`: the output reads
// only the envelope).
void distanceEnvelope(FloatArray field, uint first, uint step, int n, float w, FloatArray dst, uint outFirst, uint outStep,
                      int from, int to, bool clearance) {
  int k = -1;
  for (int q = 0; q < n; ++q) {
    float f = field.v[first + step * uint(q)];
    if (f >= kFarSquared) continue;
    precise float fq = f + w * float(q) * float(q);
    float boundary = -kFarSquared;
    while (k >= 0) {
      int r = gRoot[k];
      precise float fr = gRootValue[k] + w * float(r) * float(r);
      precise float b = exactDiv(fq - fr, 2.0 * w * float(q - r));
      boundary = b;
      if (boundary > gBoundary[k]) break;
      --k;
    }
    if (k < 0) boundary = -kFarSquared;
    ++k;
    gRoot[k] = q;
    gBoundary[k] = boundary;
    gRootValue[k] = f;
  }
  int j = 0;
  for (int q = from; q < to; ++q) {
    float value = kFarSquared;
    if (k >= 0) {
      while (j < k && gBoundary[j + 1] < float(q)) ++j;
      int r = gRoot[j];
      precise float d = w * float(q - r) * float(q - r) + gRootValue[j];
      value = d;
    }
    dst.v[outFirst + outStep * uint(q - from)] = clearance ? clearanceOf(value, pc.p.rangeSquared) : value;
  }
}

#endif

float axisWeight(uint axis) { return axis == 0u ? pc.p.weightX : axis == 1u ? pc.p.weightY : pc.p.weightZ; }

ivec3 padding() { return ivec3(pc.p.padX, pc.p.padY, pc.p.padZ); }

// Block b's target region: its key and slot, and the part computed ([lo, hi), region-local).
ivec4 targetOf(uint block) { return ivec4(Uvec4Array(pc.p.targets).v[block * kClearanceTargetVec4s]); }
ivec3 targetLo(uint block) { return ivec4(Uvec4Array(pc.p.targets).v[block * kClearanceTargetVec4s + 1u]).xyz; }
ivec3 targetHi(uint block) { return ivec4(Uvec4Array(pc.p.targets).v[block * kClearanceTargetVec4s + 2u]).xyz; }

// Map voxel of block b's voxel (0, 0, 0), in 64 bits: a block at either end of the int32
// voxel range reaches past it (as the CPU reference computes it).
i64vec3 blockOrigin(uint block) {
  return i64vec3(targetOf(block).xyz) * int64_t(pc.p.regionSize) - i64vec3(padding());
}

// Whether map voxel v is an obstacle: never outside the obstacle band (a voxel layer below
// or above the ignored heights); an unobserved voxel (also one of a region the cache does
// not hold, or past the int32 voxel range, which no map holds) unless unknown space is free;
// an observed one at or above the occupancy threshold. The last region looked up is kept in
// cachedKey / cachedSlot (start them at ivec3(0x7fffffff) / -1): a line crosses few regions.
bool obstacleAt(i64vec3 v, inout ivec3 cachedKey, inout int cachedSlot) {
  if ((pc.p.flags & kClearanceBandLow) != 0u && v.z < int64_t(pc.p.bandLow)) return false;
  if ((pc.p.flags & kClearanceBandHigh) != 0u && v.z > int64_t(pc.p.bandHigh)) return false;
  bool unknownObstacle = (pc.p.flags & kClearanceUnknownFree) == 0u;
  if (any(lessThan(v, i64vec3(-2147483648l))) || any(greaterThan(v, i64vec3(2147483647l)))) return unknownObstacle;
  int n = pc.p.regionSize;
  ivec3 voxel = ivec3(v);
  ivec3 key = regionOfVoxel(voxel, n);
  if (key != cachedKey) {
    cachedKey = key;
    cachedSlot = findRegionSlot(pc.p.regionTable, pc.p.tableMask, pc.p.maxProbe, key);
  }
  if (cachedSlot < 0) return unknownObstacle;
  ivec3 local = voxel - key * n;
  UintArray occupancy = UintArray(Uint64Array(pc.p.layers).v[kLayerIdOccupancy]);
  float value = uintBitsToFloat(occupancy.v[uint(cachedSlot) * uint(n * n * n) + uint(local.x + n * (local.y + n * local.z))]);
  if (isinf(value)) return unknownObstacle;
  return value >= uintBitsToFloat(pc.p.threshold);
}

#endif

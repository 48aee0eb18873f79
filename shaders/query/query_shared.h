// The batched map queries (engine/query): push constants and the interpolation formula,
// one definition for the shaders and for the CPU reference ("voxen/gpu/query/query_shared.h"),
// so that both compute clearance samples with the same float operations in the same order.
#ifndef VOXEN_QUERY_SHARED_H
#define VOXEN_QUERY_SHARED_H

#include "../common/shared.h"

// GLSL may fuse a multiply and an add into one rounding unless told not to; C++ (no
// -ffp-contract on x86-64's baseline, which has no FMA) rounds each operation, as GLSL's
// `precise` does.
#ifdef __cplusplus
#define VOXEN_QUERY_PRECISE
#else
#define VOXEN_QUERY_PRECISE precise
#endif

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kQueryGroupSize, 64u)
// Points (and box voxels) one invocation answers, one after another: lavapipe's fixed cost
// per invocation (push constants copied lane by lane, the map's addresses) is paid once for
// them. Small enough that the loops stay far under its 65,535-iteration cap.
VOXEN_CONST(uint, kQueryItemsPerInvocation, 16u)
// A ray segment's result before any hit: its ordinal (voxels visited before the hit).
VOXEN_CONST(uint, kQueryNoHit, 0xFFFFFFFFu)

// Where the passes find the map: the read-only region cache's layer pools, and the query's
// own region lookup for the chunk of regions resident now: a dense grid over the box of the
// map's regions (one int per region) when it is small enough, else a hash table of the map's
// regions (ivec4 key and value, w -1 = empty; region_table.glsl's probing). A region's value
// is its cache slot when resident, kQueryElsewhere when the map holds it but another chunk
// is resident; a region not found is not in the map (every voxel unobserved).
struct QueryMapPush {
  VOXEN_ADDRESS layers;    // LayerTable of the region cache
  VOXEN_ADDRESS lookup;    // int per grid cell, or the hash table
  int gridLoX, gridLoY, gridLoZ;  // the grid's lowest region
  uint gridDimX, gridDimY, gridDimZ;  // regions per axis; gridDimX 0: the hash table
  uint hashMask;
  uint hashProbe;
  int regionSize;
  uint layer;              // the layer the pass reads (occupancy or clearance id)
};
VOXEN_SHARED_ASSERT(sizeof(QueryMapPush) == 56)
VOXEN_CONST(int, kQueryElsewhere, -2)
// Regions the dense grid may have (an int each); a sparser map takes the hash table.
VOXEN_CONST(uint, kQueryMaxGridCells, 16777216u)

// query_points.comp: per item its voxel (occupancy: one; clearance: the lower corner of
// the 8 around the point) as ivec4, and out the value bits of each (1 or 8 uints per item),
// written only where the voxel's region is resident.
struct QueryPointsPush {
  QueryMapPush map;
  VOXEN_ADDRESS voxels;    // ivec4 per item
  VOXEN_ADDRESS values;    // uint per corner
  uint count;
  uint corners;            // 1 or 8
};
VOXEN_SHARED_ASSERT(sizeof(QueryPointsPush) == 80)

// What the host fills the gathered values with before the gather, so that a voxel whose
// region the map does not hold (never written) tells itself from an unobserved one: a NaN
// no log-odds takes for occupancy, and a negative value no clearance takes (the layer holds
// distances >= 0 or kNoObstacleInRange, -1).
VOXEN_CONST(uint, kQueryOutsideMapBits, 0x7fc0beefu)
VOXEN_CONST(float, kQueryOutsideMapClearance, -2.0f)
// QueryStatus as the shaders write it (voxen/query/query_types.hpp's order).
VOXEN_CONST(uint, kQueryStatusObserved, 0u)
VOXEN_CONST(uint, kQueryStatusUnobserved, 1u)
VOXEN_CONST(uint, kQueryStatusOutOfRange, 2u)
VOXEN_CONST(uint, kQueryStatusOutsideMap, 3u)

// query_classify.comp: occupancy answers from the gathered value bits, in the host's
// OccupancyAnswer layout (float value, int VoxelClass, QueryStatus in the low byte of a
// word), so they are read back straight into the caller's memory.
struct QueryClassifyPush {
  VOXEN_ADDRESS values;    // uint (float bits) per point
  VOXEN_ADDRESS answers;   // 3 uints per point: value bits, class (0 unobserved, 1 free, 2 occupied), status
  uint count;
  float threshold;         // log-odds at or above which a voxel is occupied
};
VOXEN_SHARED_ASSERT(sizeof(QueryClassifyPush) == 24)

// query_clearance.comp: the 8 corner values and the fraction of every point to samples.
struct QueryInterpolatePush {
  VOXEN_ADDRESS corners;   // 8 floats per point (x fastest, then y, then z)
  VOXEN_ADDRESS fractions; // vec4 per point: the fraction in its cell, w unused
  VOXEN_ADDRESS samples;   // 5 words per point: clearance, gradient x, y, z, status
  uint count;
  float inverseResolution;
};
VOXEN_SHARED_ASSERT(sizeof(QueryInterpolatePush) == 32)

// The result of one ray segment (and, after the resolve pass, of one ray): the first voxel
// it decided as a hit, the walk's t where the ray enters it, its value, and its ordinal
// within the segment (kQueryNoHit: none).
struct QueryHit {
  ivec3 voxel;
  uint tEnterBits;
  uint ordinal;
  uint valueBits;
  uint pad0;
  uint pad1;
};
VOXEN_SHARED_ASSERT(sizeof(QueryHit) == 32)

struct QueryRaycastPush {
  QueryMapPush map;
  VOXEN_ADDRESS rays;      // GpuRay per ray (occupancy_shared.h; segments and segmentBase set)
  VOXEN_ADDRESS segments;  // uvec2 (ray, segment) per invocation
  VOXEN_ADDRESS hits;      // QueryHit per segment
  VOXEN_ADDRESS firstHit;  // uint per ray: the lowest segment with a hit
  VOXEN_ADDRESS answers;   // QueryHit per ray (the resolve pass)
  uint count;              // segments (walk) or rays (resolve)
  uint unknownBlocks;
  float threshold;         // log-odds at or above which a voxel is occupied
  uint pad0;
};
VOXEN_SHARED_ASSERT(sizeof(QueryRaycastPush) == 112)

struct QueryBoxPush {
  QueryMapPush map;
  VOXEN_ADDRESS flags;     // uint per voxel of the slab: 1 where it is of the class
  int lowerX, lowerY, lowerZ;  // the box's lowest voxel
  uint dimX, dimY;         // the box's voxels along x and y
  uint first, count;       // the slab: linear box indices [first, first + count)
  uint voxelClass;         // 0 unobserved, 1 free, 2 occupied (VoxelClass)
  float threshold;
};
VOXEN_SHARED_ASSERT(sizeof(QueryBoxPush) == 104)

// Trilinear interpolation between 8 voxel centres c (x fastest) at fraction f, and its
// gradient per voxel edge (the caller scales it to metres). Every operation rounds on its
// own (VOXEN_QUERY_PRECISE), so the GPU and the CPU reference agree bit for bit.
VOXEN_MATH float queryLerp(float a, float b, float t) {
  VOXEN_QUERY_PRECISE float d = b - a;
  VOXEN_QUERY_PRECISE float r = a + d * t;
  return r;
}

VOXEN_SHARED_END

#endif

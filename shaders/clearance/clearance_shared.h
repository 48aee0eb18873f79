// Clearance (each voxel's distance to the nearest obstacle within a range): the push
// constants of the GPU passes and the layer's values, shared by the host
// (engine/clearance/src/gpu_clearance.cpp) and the shaders (shaders/clearance/*.comp).
#ifndef VOXEN_CLEARANCE_SHARED_H
#define VOXEN_CLEARANCE_SHARED_H

#include "../common/shared.h"

#ifdef __cplusplus
#include <cmath>
#else
#include "../common/exact_math.glsl"
#endif

VOXEN_SHARED_BEGIN

#ifdef __cplusplus
// IEEE float: std::sqrt rounds exactly already (the GLSL twin: common/exact_math.glsl).
inline float exactSqrt(float x) { return std::sqrt(x); }
#endif

// The clearance layer's value for a voxel with no obstacle within the range (metres
// otherwise; 0 for an obstacle).
VOXEN_CONST(float, kNoObstacleInRange, -1.0f)
// Largest padded block edge (the region plus twice the range, in voxels, per axis): the
// exact transform keeps a line's lower envelope in private arrays of this size (three of
// them, 6 KiB per invocation), and the propagation techniques' keys hold offsets of up to
// kOffsetBias - 1 voxels, more than a block's padding. A region of 32^3 gets up to 240
// voxels of padding: 24 m at 0.1 m per voxel.
VOXEN_CONST(uint, kMaxBlockEdge, 512u)
// A squared distance that no obstacle within any range reaches.
VOXEN_CONST(float, kFarSquared, 3.0e38f)

// A voxel's clearance from its squared distance to the nearest obstacle (metres^2).
VOXEN_MATH float clearanceOf(float squared, float rangeSquared) {
  return squared <= rangeSquared ? exactSqrt(squared) : kNoObstacleInRange;
}

// ClearancePush::flags
VOXEN_CONST(uint, kClearanceUnknownFree, 1u)  // unobserved voxels are free, not obstacles
VOXEN_CONST(uint, kClearanceBandLow, 2u)      // voxels below bandLow (z index) are never obstacles
VOXEN_CONST(uint, kClearanceBandHigh, 4u)     // voxels above bandHigh are never obstacles

// The exact technique in voxel squares (the CLEARANCE_VOXEL_SQUARES variants of the seed and
// envelope passes, where one scale applies to every axis): the field holds squared distances
// in voxels as uints, compared in integers, and kNoVoxelSquare (or any value above the
// range's largest square) where no obstacle is within the range.
VOXEN_CONST(uint, kNoVoxelSquare, 0xFFFFFFFFu)

// One batch of target regions: block b is the padded block around target region b (bx, by,
// bz each regionSize + 2 * pad per axis). The exact transform's field keeps only the x
// inside the region (regionSize x by x bz per block, x fastest): the y and z passes need
// no other; the propagation techniques' key grids are the whole block or the region.
struct ClearancePush {
  VOXEN_ADDRESS layers;       // the region cache's LayerTable
  VOXEN_ADDRESS regionTable;  // ivec4[]: (region x, y, z, slot), slot -1 = empty
  VOXEN_ADDRESS targets;      // kClearanceTargetVec4s ivec4 per block: the target region's key and
                              // its slot; lo; hi (the voxels computed: [lo, hi), region-local)
  VOXEN_ADDRESS field;        // exact: float[] per block voxel, squared distance (metres^2) so far
                              // (voxel squares: uint[], squared voxel distance);
                              // propagation: uint64 keys (the nearest obstacle so far), one buffer
  VOXEN_ADDRESS other;        // propagation: the other ping-pong buffer of keys
  VOXEN_ADDRESS lists;        // open list: counts, indirect arguments and the two lists
  uint tableMask;
  uint maxProbe;
  int regionSize;
  uint clearanceLayer;        // the layer id (LayerTable entry)
  int padX;                   // padding per axis, in voxels
  int padY;
  int padZ;
  uint blocks;                // blocks in this batch
  float weightX;              // (resolution * axis scale)^2 per axis
  float weightY;
  float weightZ;
  float rangeSquared;         // metres^2; voxel squares: the largest squared voxel distance within
                              // the range (an integer below 2^24, exact as a float)
  uint threshold;             // float bits of the occupancy threshold (log-odds)
  uint flags;                 // kClearanceUnknownFree | kClearanceBandLow | kClearanceBandHigh
  uint axis;                  // exact: the line pass's axis (0 x, 1 y, 2 z)
  uint iteration;             // open list: which list is read (iteration % 2); exact: the
                              // invocations per block of this pass (the batch's largest part)
  int bandLow;                // with kClearanceBandLow: the lowest voxel layer (z) whose voxels may be obstacles
  int bandHigh;               // with kClearanceBandHigh: the highest
  VOXEN_ADDRESS metres;       // voxel squares: float[rangeSquared + 1], the clearance of each squared
                              // voxel distance (engine/clearance/internal/voxen/clearance/voxel_squares.hpp)
};
VOXEN_SHARED_ASSERT(sizeof(ClearancePush) == 128)

// ClearancePush::targets: per block (key.x, key.y, key.z, slot), (lo.x, lo.y, lo.z, 0),
// (hi.x, hi.y, hi.z, 0). The exact technique computes the voxels [lo, hi) of the region (a
// part needs the voxel squares: engine/clearance clearance_changes.hpp); the propagation
// techniques always the whole region.
VOXEN_CONST(uint, kClearanceTargetVec4s, 3u)

// The propagation techniques keep, per voxel, the nearest obstacle found so far as a 64-bit
// key: the float bits of its weighted squared distance (metres^2) above, its offset from the
// voxel (10 bits per axis, +512) below, so that atomicMin keeps the nearer obstacle (and of
// two equally near, the smaller packed offset). kNoKey: none found.
VOXEN_CONST(uint64_t, kNoKey, 0xFFFFFFFFFFFFFFFFul)
VOXEN_CONST(int, kOffsetBias, 512)

// The open list's header (in uints, at ClearancePush::lists): per list (two, ping-pong) the
// indirect dispatch (x, y, z) and the count, 4 uints each; then the two lists, `capacity`
// entries each (a block voxel's index within the batch).
VOXEN_CONST(uint, kOpenListHeaderWords, 8u)

VOXEN_SHARED_END

#endif

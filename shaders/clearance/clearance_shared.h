// Clearance (each voxel's distance to the nearest obstacle within a range): the push
// constants of the GPU passes and the layer's values, shared by the host
// (engine/clearance/src/gpu_clearance.cpp) and the shaders (shaders/clearance/*.comp).
#ifndef VOXEN_CLEARANCE_SHARED_H
#define VOXEN_CLEARANCE_SHARED_H

#include "../common/shared.h"

#ifdef __cplusplus
#include <cmath>
#endif

VOXEN_SHARED_BEGIN

#ifdef __cplusplus
using std::sqrt;
#endif

// The clearance layer's value for a voxel with no obstacle within the range (metres
// otherwise; 0 for an obstacle).
VOXEN_CONST(float, kNoObstacleInRange, -1.0f)
// Largest padded block edge (the region plus twice the range, in voxels, per axis): the
// exact transform keeps a line's lower envelope in private arrays of this size.
VOXEN_CONST(uint, kMaxBlockEdge, 256u)
// A squared distance that no obstacle within any range reaches.
VOXEN_CONST(float, kFarSquared, 3.0e38f)

// A voxel's clearance from its squared distance to the nearest obstacle (metres^2).
VOXEN_MATH float clearanceOf(float squared, float rangeSquared) {
  return squared <= rangeSquared ? sqrt(squared) : kNoObstacleInRange;
}

// One batch of target regions: block b is the padded block around target region b, its
// voxels x fastest (bx, by, bz each regionSize + 2 * pad per axis).
struct ClearancePush {
  VOXEN_ADDRESS layers;       // the region cache's LayerTable
  VOXEN_ADDRESS regionTable;  // ivec4[]: (region x, y, z, slot), slot -1 = empty
  VOXEN_ADDRESS targets;      // ivec4[] per block: the target region's key and its slot
  VOXEN_ADDRESS field;        // exact: float[] per block voxel, squared distance (metres^2) so far;
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
  float rangeSquared;         // metres^2
  uint threshold;             // float bits of the occupancy threshold (log-odds)
  uint unknownFree;           // 1: unobserved voxels are free, 0: obstacles
  uint axis;                  // exact: the line pass's axis (0 x, 1 y, 2 z)
  uint iteration;             // open list: which list is read (iteration % 2)
};
VOXEN_SHARED_ASSERT(sizeof(ClearancePush) == 112)

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

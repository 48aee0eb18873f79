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
  VOXEN_ADDRESS field;        // float[] per block voxel: squared distance (metres^2) so far
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
  uint axis;                  // the line pass's axis (0 x, 1 y, 2 z)
  uint reserved;
};
VOXEN_SHARED_ASSERT(sizeof(ClearancePush) == 96)

VOXEN_SHARED_END

#endif

// The element layouts of the NDT layers (ndt_covariance, ndt_intensity): data of the map,
// read by whoever reads a map (the occupancy passes that write them, the exports that draw
// them), so they live with the map and not with the passes that fill them.
//
// Frame: metres, relative to the lower corner of the voxel. A voxel's covariance P = S S^T
// is stored as its lower-triangular square-root factor S, so that it stays positive
// definite and is never inverted.
#ifndef VOXEN_MAP_NDT_LAYERS_H
#define VOXEN_MAP_NDT_LAYERS_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// The covariance layer (ndt_covariance, 24 bytes): S row by row, lower triangle. All zero
// until the voxel's first sample sets it to the initial covariance.
struct NdtCovariance {
  float s00;
  float s10;
  float s11;
  float s20;
  float s21;
  float s22;
};
VOXEN_SHARED_ASSERT(sizeof(NdtCovariance) == 24)

// NDT-TM's intensity layer (ndt_intensity, 8 bytes): running mean and variance of the
// returns' intensities in the voxel, restarted with the covariance.
struct NdtIntensity {
  float mean;
  float variance;
};
VOXEN_SHARED_ASSERT(sizeof(NdtIntensity) == 8)

VOXEN_SHARED_END

#endif

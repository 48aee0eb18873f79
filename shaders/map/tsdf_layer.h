// The `tsdf` layer's voxel (voxen/map/layer.hpp kTsdfLayer): the map owns the layout, so the
// layer's type, its check and its merge rule (engine/map) and the TSDF's integrators
// (engine/tsdf, shaders/tsdf/tsdf_shared.h) share this one definition.
#ifndef VOXEN_MAP_TSDF_LAYER_H
#define VOXEN_MAP_TSDF_LAYER_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// Fine units per voxel edge: positions, depths and distances.
VOXEN_CONST(int, kTsdfFineBits, 16)
VOXEN_CONST(int64_t, kTsdfFine, 65536l)
// Weight units of one full measurement (the linear drop-off behind the surface gives less).
VOXEN_CONST(uint, kTsdfWeightUnit, 16u)

// One voxel: the weighted mean signed distance (fine units, positive in front of the surface,
// clamped to the truncation) and the summed weight (0: unobserved, distance 0).
struct TsdfVoxel {
  int distance;
  uint weight;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfVoxel) == 8)

// a / b rounded to nearest, halves away from zero, for b > 0 (non-negative operands only:
// C++ and SPIR-V agree on those). The weighted means (integration, merges) round with it.
VOXEN_FUNCTION int64_t tsdfRoundDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

VOXEN_SHARED_END

#endif

// The `tsdf_colour` layer's voxel (voxen/map/layer.hpp kTsdfColourLayer): the colour beside
// the `tsdf` layer's distance, as the map owns it, shared by the layer's check and merge rule
// (engine/map), the integrators (engine/tsdf, shaders/tsdf/tsdf_integrate.comp) and the
// mesher's vertex colours (shaders/tsdf/tsdf_mesh.comp).
//
// Per voxel the weighted running mean of the red, green and blue of the pixels that measured
// it within the band, with its own weight: a frame folds its pixel's colour with the same
// weight w it folds the distance (as Open3D and voxblox average colour with the TSDF's
// weight), where the measured distance lies inside the truncation (a voxel whose distance is
// clamped to +truncation sees a surface far behind it, whose colour is not the voxel's: at a
// silhouette it would paint the near surface's edge with the far one's colour). A frame
// without colour, or a clamped measurement, leaves the colour and its weight as they are, so
// the mean stays a mean of the surface's colours only. Integers throughout (the GPU equals the CPU reference bit for bit, and a
// merge's weighted mean is the same whatever the order of the maps).
#ifndef VOXEN_MAP_TSDF_COLOUR_LAYER_H
#define VOXEN_MAP_TSDF_COLOUR_LAYER_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

// One voxel: rgb = red | green << 8 | blue << 16 (the top byte 0), and the summed weight in
// the tsdf layer's weight units (kTsdfWeightUnit per measurement; 0: no colour yet, rgb 0).
struct TsdfColourVoxel {
  uint rgb;
  uint weight;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfColourVoxel) == 8)

// Channel c (0 red, 1 green, 2 blue) of a packed colour.
VOXEN_FUNCTION uint tsdfColourChannel(uint rgb, uint c) {
  return (rgb >> (8u * c)) & 255u;
}

// The weighted mean of two packed colours, per channel (a wa + b wb) / (wa + wb) rounded to
// nearest (halves up; all operands non-negative), for wa + wb > 0: the fold of a measurement
// (b, weight wb) into a voxel (a, wa), and the two-input merge.
VOXEN_FUNCTION uint tsdfColourMean(uint a, uint wa, uint b, uint wb) {
  uint64_t total = uint64_t(wa) + uint64_t(wb);
  uint rgb = 0u;
  for (uint c = 0u; c < 3u; ++c) {
    uint64_t sum = uint64_t(wa) * uint64_t(tsdfColourChannel(a, c)) + uint64_t(wb) * uint64_t(tsdfColourChannel(b, c));
    rgb |= uint((sum + total / 2ul) / total) << (8u * c);
  }
  return rgb;
}

VOXEN_SHARED_END

#endif

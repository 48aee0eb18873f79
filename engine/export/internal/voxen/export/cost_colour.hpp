#pragma once
// The colour of a heightmap cell's traversability cost (gpu::HeightmapCell::cost), the one
// every picture of a heightmap uses so that they read alike: `voxen export --cost-png`, the
// heightmap mesh (voxen/export/heightmap_mesh.hpp) and `voxen render HM.vxh`. Costs 0..100
// take the heat ramp (heatColour at cost / 100), a lethal cell is black and an unknown one
// the light grey of every unobserved voxel in Voxen's pictures (kSliceUnknownRgb).
#include <cstdint>

#include "voxen/export/colour_bar.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/gpu/heightmap/heightmap_shared.h"

namespace voxen::detail {

inline constexpr Rgb kCostUnknownRgb{kSliceUnknownRgb[0], kSliceUnknownRgb[1], kSliceUnknownRgb[2]};
inline constexpr Rgb kCostLethalRgb = kBlack;

inline Rgb costColour(uint32_t cost) {
  if (cost == gpu::kCostLethal) return kCostLethalRgb;
  if (cost > 100u) return kCostUnknownRgb;  // kCostUnknown, and anything a newer writer adds
  return heatColour(double(cost) / 100.0);
}

}  // namespace voxen::detail

#pragma once
// The painter's starting scene: a ground slab, a sphere and two boxes in a grid, as
// clamped signed distances with a two-voxel ramp (the brush's convention), coloured by
// object. Shared by the voxel_painter sample and `voxen bench paint`.
#include "voxen/painter/cpu_mesher.hpp"

namespace voxen {

DensityGrid demoScene(uint32_t size = 128);

}  // namespace voxen

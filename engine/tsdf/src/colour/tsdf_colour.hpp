#pragma once
// TSDF colour (the map's tsdf_colour layer, shaders/map/tsdf_colour_layer.h): what the CPU
// reference and the GPU integrator share about a frame's colour image.
#include "voxen/map/depth_image.hpp"
#include "voxen/map/map.hpp"

namespace voxen::detail {

// Whether the frame's colour is folded: the frame has a colour image and the map the
// tsdf_colour layer (a coloured frame into a map without it folds its depth only). Throws
// Error naming the colour image when it does not match the depth image (size, bytes), so a
// bad frame leaves the map as it was.
bool tsdfFoldsColour(const OccupancyMap& map, const DepthFrame& frame);

}  // namespace voxen::detail

#pragma once
// What the node publishes, made from a snapshot and its heightmap in the seam's plain types
// (engine_bridge.hpp), which ros_messages.cpp copies into ROS messages:
// - the 2D map: the heightmap's Nav2 trinary map (nav2TrinaryPixels, the cells
//   `voxen export HM.vxh --nav2` writes) as OccupancyGrid values, row 0 the lowest y;
// - the occupied voxels' centres and log-odds, regions in key order, voxels in index order.
//
// Threads: pure functions of their arguments.
#include <optional>

#include "engine_bridge.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/map/map.hpp"

namespace voxen_ros {

// Free 0, lethal 100, unknown -1 (the PGM's 254, 0 and 205); origin the lower-left cell's corner.
GridData gridOf(const voxen::Heightmap& heightmap, uint32_t level, std::optional<uint32_t> maxCost);
VoxelData occupiedVoxelsOf(const voxen::OccupancyMap& map);

}  // namespace voxen_ros

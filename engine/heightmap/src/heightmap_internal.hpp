#pragma once
// What the heightmap's CPU reference and GPU runner share besides the public header.
#include <cstdint>
#include <vector>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen {


// The region columns (x, y; z unused) whose voxel columns meet the grid, x fastest.
inline std::vector<RegionKey> heightmapRegionColumns(const HeightmapGrid& grid, int32_t n) {
  std::vector<RegionKey> columns;
  const int32_t x0 = floorDiv(grid.gridX, n), x1 = floorDiv(grid.gridX + int32_t(grid.width) - 1, n);
  const int32_t y0 = floorDiv(grid.gridY, n), y1 = floorDiv(grid.gridY + int32_t(grid.height) - 1, n);
  for (int32_t y = y0; y <= y1; ++y)
    for (int32_t x = x0; x <= x1; ++x) columns.push_back({x, y, 0});
  return columns;
}

// The neighbour pass (gradients, steps, costs) on the host: the CPU reference's second half.
void heightmapNeighbourPassCpu(Heightmap& hm, const HeightmapLimits& limits);

}  // namespace voxen

#pragma once
// What the heightmap's CPU reference and GPU runner share besides the public header.
#include <cstdint>
#include <vector>

#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/parallel_for.hpp"

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

// A level a column does not have: what a new Heightmap's cells hold.
inline gpu::HeightmapCell heightmapAbsentCell() {
  gpu::HeightmapCell absent{};
  absent.stepEast = absent.stepNorth = absent.stepWest = absent.stepSouth = gpu::kNoNeighbour;
  absent.cost = gpu::kCostUnknown;
  return absent;
}

// Cells [x0, x1) x [y0, y1) of a heightmap's grid.
struct HeightmapRect {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// The column pass on the host (the CPU reference's first half) for the given region columns
// (x, y) only: writes their cells' heights, rooms and flags, and their column flags. Expects
// those cells absent (as a new Heightmap's are).
void heightmapColumnPassCpu(const OccupancyMap& map, const HeightmapLimits& limits, const std::vector<RegionKey>& columns,
                            Heightmap& hm);

// The neighbour pass (gradients, steps, costs) on the host: the CPU reference's second half,
// over the whole grid or only the cells of `rects` (every level).
void heightmapNeighbourPassCpu(Heightmap& hm, const HeightmapLimits& limits);
void heightmapNeighbourPassCpu(Heightmap& hm, const HeightmapLimits& limits, const std::vector<HeightmapRect>& rects);

}  // namespace voxen

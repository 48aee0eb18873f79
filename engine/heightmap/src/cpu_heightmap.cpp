// The heightmap's CPU reference: the column walk and the neighbour pass of
// shaders/heightmap/*.comp, the same integer operations in the same order, so the GPU's cells
// equal these bit for bit. Columns (and, in the neighbour pass, rows) are independent, so the
// work is split over the machine's cores: the cells are the same for any split.
#include <algorithm>
#include <array>
#include <cstdlib>

#include "heightmap_internal.hpp"
#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

namespace {

enum class Class { Unknown, Free, Occupied };

struct Kept {
  int32_t z = 0;
  uint32_t room = 0;
  int32_t offset = 0;
  bool isVirtual = false;
};

// One voxel column, walked from the band's top down (heightmap_columns.comp).
void walkColumn(const OccupancyMap& map, const HeightmapGrid& grid, const HeightmapLimits& limits, bool virtualSurfaces,
                const std::vector<const Region*>& stack, int32_t regionZLow, uint32_t inColumn, Heightmap& out,
                uint32_t cx, uint32_t cy) {
  const int32_t n = map.regionSize();
  const float threshold = map.model().thresholdValue();
  std::array<Kept, gpu::kMaxHeightmapLevels> kept{};
  uint32_t count = 0;
  bool haveCeiling = false;
  int32_t ceiling = 0;
  Class above = Class::Unknown;
  uint32_t columnFlags = 0;
  for (int32_t z = grid.zHigh; z >= grid.zLow; --z) {
    const int32_t regionZ = floorDiv(z, n);
    const Region* region = stack[size_t(regionZ - regionZLow)];
    const uint32_t local = inColumn + uint32_t(n * n) * uint32_t(z - regionZ * n);
    Class cls = Class::Unknown;
    if (region) {
      const float logOdds = region->occupancy()[local];
      if (isObserved(logOdds)) cls = logOdds >= threshold ? Class::Occupied : Class::Free;
    }
    const bool real = cls == Class::Occupied && above != Class::Occupied;
    const bool virt = virtualSurfaces && cls == Class::Unknown && above == Class::Free;
    if (real || virt) {
      const uint32_t room = haveCeiling ? uint32_t(ceiling - z - 1) : gpu::kOpenAbove;
      if (room >= limits.requiredRoom) {
        int32_t offset = virt ? gpu::kHeightUnits : gpu::kHeightUnits / 2;
        if (real && !region->mean().empty()) {
          const VoxelMean& mean = region->mean()[local];
          if (mean.count > 0) offset = int32_t(mean.sum[2] / mean.count);
        }
        if (count == grid.levels) {
          for (uint32_t i = 1; i < count; ++i) kept[i - 1] = kept[i];
          count -= 1;
        }
        kept[count++] = {z, room, offset, virt};
      }
    }
    if (cls == Class::Occupied) {
      haveCeiling = true;
      ceiling = z;
      columnFlags |= gpu::kColumnOccupied;
    } else if (cls == Class::Free) {
      columnFlags |= gpu::kColumnFree;
    }
    above = cls;
    // A missing region: jump to its bottom (heightmap_columns.comp says why).
    if (!region) z = std::max(regionZ * n, grid.zLow);
  }
  out.columnFlags()[size_t(cy) * grid.width + cx] = columnFlags;
  for (uint32_t level = 0; level < count; ++level) {
    const Kept& k = kept[count - 1 - level];
    gpu::HeightmapCell& c = out.cell(level, cx, cy);
    c.height = k.z * gpu::kHeightUnits + k.offset;
    c.room = k.room;
    c.flags = gpu::kLevelPresent | (k.isVirtual ? gpu::kLevelVirtual : 0u);
  }
}

int32_t stepTo(const Heightmap& hm, int32_t h, int64_t x, int64_t y) {
  if (x < 0 || y < 0 || x >= int64_t(hm.width()) || y >= int64_t(hm.height())) return gpu::kNoNeighbour;
  int32_t best = gpu::kNoNeighbour;
  uint32_t bestDistance = UINT32_MAX;
  for (uint32_t level = 0; level < hm.levels(); ++level) {
    const gpu::HeightmapCell& other = hm.cell(level, uint32_t(x), uint32_t(y));
    if ((other.flags & gpu::kLevelPresent) == 0) break;
    const int32_t step = other.height - h;
    const uint32_t distance = uint32_t(std::abs(step));
    if (distance < bestDistance) {
      bestDistance = distance;
      best = step;
    }
  }
  return best;
}

int32_t gradientOf(int32_t forward, int32_t backward) {
  if (forward != gpu::kNoNeighbour && backward != gpu::kNoNeighbour) return forward - backward;
  if (forward != gpu::kNoNeighbour) return 2 * forward;
  if (backward != gpu::kNoNeighbour) return -2 * backward;
  return 0;
}

uint32_t stepCost(int32_t step, const HeightmapLimits& limits, bool& lethal) {
  if (step == gpu::kNoNeighbour) return 0;
  const uint32_t magnitude = uint32_t(std::abs(step));
  if (magnitude > uint32_t(limits.maxStepUnits)) {
    lethal = true;
    return 0;
  }
  return limits.maxStepUnits > 0 ? 100u * magnitude / uint32_t(limits.maxStepUnits) : 0u;
}

// The neighbour pass of one cell (heightmap_neighbours.comp).
void neighbourCell(Heightmap& hm, const HeightmapLimits& limits, uint32_t level, uint32_t x, uint32_t y) {
  gpu::HeightmapCell& c = hm.cell(level, x, y);
  if ((c.flags & gpu::kLevelPresent) == 0) return;
  const int32_t east = stepTo(hm, c.height, int64_t(x) + 1, y), north = stepTo(hm, c.height, x, int64_t(y) + 1);
  const int32_t west = stepTo(hm, c.height, int64_t(x) - 1, y), south = stepTo(hm, c.height, x, int64_t(y) - 1);
  const int32_t gx = gradientOf(east, west), gy = gradientOf(north, south);
  bool lethal = false;
  uint32_t cost = std::max(std::max(stepCost(east, limits, lethal), stepCost(north, limits, lethal)),
                           std::max(stepCost(west, limits, lethal), stepCost(south, limits, lethal)));
  const uint64_t g2 = uint64_t(int64_t(gx) * gx) + uint64_t(int64_t(gy) * gy);
  if (g2 > limits.maxGradientSquared)
    lethal = true;
  else if (limits.maxGradientSquared > 0)
    cost = std::max(cost, uint32_t(100ull * g2 / limits.maxGradientSquared));
  if (c.room != gpu::kOpenAbove && limits.marginRoom > 0) {
    const uint32_t excess = c.room - limits.requiredRoom;
    if (excess < limits.marginRoom) cost = std::max(cost, 100u * (limits.marginRoom - excess) / limits.marginRoom);
  }
  c.gradientX = gx;
  c.gradientY = gy;
  c.stepEast = east;
  c.stepNorth = north;
  c.stepWest = west;
  c.stepSouth = south;
  c.cost = lethal ? gpu::kCostLethal : cost;
}

}  // namespace

void heightmapNeighbourPassCpu(Heightmap& hm, const HeightmapLimits& limits) {
  heightmapNeighbourPassCpu(hm, limits, {HeightmapRect{0, 0, hm.width(), hm.height()}});
}

void heightmapNeighbourPassCpu(Heightmap& hm, const HeightmapLimits& limits, const std::vector<HeightmapRect>& rects) {
  // Reads heights and flags only, which this pass never writes (it writes the other fields of
  // its own cell): any cell order, and rows on several threads, give the same; so do
  // overlapping rectangles.
  std::vector<std::array<uint32_t, 4>> rows;  // level, y, x0, x1 (exclusive)
  for (const HeightmapRect& r : rects)
    for (uint32_t level = 0; level < hm.levels(); ++level)
      for (uint32_t y = r.y0; y < r.y1; ++y) rows.push_back({level, y, r.x0, r.x1});
  parallelFor(rows.size(), [&](size_t i) {
    for (uint32_t x = rows[i][2]; x < rows[i][3]; ++x) neighbourCell(hm, limits, rows[i][0], x, rows[i][1]);
  });
}

void heightmapColumnPassCpu(const OccupancyMap& map, const HeightmapLimits& limits, const std::vector<RegionKey>& columns,
                            Heightmap& hm) {
  const HeightmapGrid& grid = hm.grid();
  const HeightmapOptions& options = hm.options();
  const int32_t n = map.regionSize();
  const int32_t regionZLow = floorDiv(grid.zLow, n), regionZHigh = floorDiv(grid.zHigh, n);
  parallelFor(columns.size(), [&](size_t c) {  // each region column's cells are its own
    const RegionKey& column = columns[c];
    std::vector<const Region*> stack(size_t(regionZHigh - regionZLow + 1));
    for (int32_t rz = regionZLow; rz <= regionZHigh; ++rz) stack[size_t(rz - regionZLow)] = map.findRegion({column.x, column.y, rz});
    for (uint32_t inColumn = 0; inColumn < uint32_t(n * n); ++inColumn) {
      const int64_t x = int64_t(column.x) * n + inColumn % uint32_t(n) - grid.gridX;
      const int64_t y = int64_t(column.y) * n + inColumn / uint32_t(n) - grid.gridY;
      if (x < 0 || y < 0 || x >= int64_t(grid.width) || y >= int64_t(grid.height)) continue;
      walkColumn(map, grid, limits, options.virtualSurfaces, stack, regionZLow, inColumn, hm, uint32_t(x), uint32_t(y));
    }
  });
}

Heightmap computeHeightmap(const OccupancyMap& map, const HeightmapOptions& options) {
  const HeightmapGrid grid = heightmapGrid(map, options);
  const HeightmapLimits limits = heightmapLimits(options, grid.resolution);
  Heightmap hm(grid, options);
  heightmapColumnPassCpu(map, limits, heightmapRegionColumns(grid, map.regionSize()), hm);
  heightmapNeighbourPassCpu(hm, limits);
  return hm;
}

}  // namespace voxen

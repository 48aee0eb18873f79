// HeightmapTracker: the heightmap's dirty region columns found from the map's change stamps,
// recomputed with the CPU reference's passes (cpu_heightmap.cpp) on those columns only.
#include "voxen/heightmap/heightmap_tracker.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "heightmap_internal.hpp"

namespace voxen {

namespace {

// When what the heightmap reads of a region last changed: its voxels' classes (occupied, free,
// unknown), and with voxel means every value update (a hit moves the mean without a crossing).
uint64_t regionStamp(const Region& region, bool useMean) {
  return useMean ? region.occupancyStamp : std::max(region.occupiedSetStamp, region.freeSetStamp);
}

struct RegionColumnSpan {
  int32_t x0, x1, y0, y1, z0, z1;  // region coordinates, inclusive
  bool holds(const RegionKey& k) const { return k.x >= x0 && k.x <= x1 && k.y >= y0 && k.y <= y1 && k.z >= z0 && k.z <= z1; }
};

RegionColumnSpan spanOf(const HeightmapGrid& g, int32_t n) {
  return {floorDiv(g.gridX, n), floorDiv(g.gridX + int32_t(g.width) - 1, n), floorDiv(g.gridY, n),
          floorDiv(g.gridY + int32_t(g.height) - 1, n), floorDiv(g.zLow, n), floorDiv(g.zHigh, n)};
}

// The cells of region column `column` within the grid, widened by `border` cells and clipped.
HeightmapRect cellsOf(const HeightmapGrid& g, int32_t n, const RegionKey& column, int32_t border) {
  const int64_t x0 = int64_t(column.x) * n - g.gridX - border, y0 = int64_t(column.y) * n - g.gridY - border;
  const int64_t x1 = x0 + n + 2 * border, y1 = y0 + n + 2 * border;
  auto clip = [](int64_t v, uint32_t size) { return uint32_t(std::clamp<int64_t>(v, 0, size)); };
  return {clip(x0, g.width), clip(y0, g.height), clip(x1, g.width), clip(y1, g.height)};
}

// A heightmap on `grid` holding the cells of `old` where the two grids overlap. A column's
// cells depend only on its own regions within the box (the band always spans every region's
// voxels the box keeps), so the kept columns stay right when the band moves too.
Heightmap movedOver(const Heightmap& old, const HeightmapGrid& grid) {
  Heightmap moved(grid, old.options());
  const HeightmapGrid& o = old.grid();
  const int64_t x0 = std::max<int64_t>(o.gridX, grid.gridX), x1 = std::min<int64_t>(int64_t(o.gridX) + o.width, int64_t(grid.gridX) + grid.width);
  const int64_t y0 = std::max<int64_t>(o.gridY, grid.gridY), y1 = std::min<int64_t>(int64_t(o.gridY) + o.height, int64_t(grid.gridY) + grid.height);
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = x0; x < x1; ++x) {
      const uint32_t ox = uint32_t(x - o.gridX), oy = uint32_t(y - o.gridY), nx = uint32_t(x - grid.gridX), ny = uint32_t(y - grid.gridY);
      for (uint32_t level = 0; level < grid.levels; ++level) moved.cell(level, nx, ny) = old.cell(level, ox, oy);
      moved.columnFlags()[size_t(ny) * grid.width + nx] = old.columnFlags(ox, oy);
    }
  return moved;
}

// Whether every cell of region column `column` (within `grid`) lies inside `old`'s columns.
bool inside(const HeightmapGrid& old, const HeightmapGrid& grid, int32_t n, const RegionKey& column) {
  const int64_t x0 = std::max<int64_t>(int64_t(column.x) * n, grid.gridX), x1 = std::min<int64_t>(int64_t(column.x) * n + n, int64_t(grid.gridX) + grid.width);
  const int64_t y0 = std::max<int64_t>(int64_t(column.y) * n, grid.gridY), y1 = std::min<int64_t>(int64_t(column.y) * n + n, int64_t(grid.gridY) + grid.height);
  return x0 >= old.gridX && x1 <= int64_t(old.gridX) + old.width && y0 >= old.gridY && y1 <= int64_t(old.gridY) + old.height;
}

}  // namespace

HeightmapTracker::HeightmapTracker(HeightmapOptions options, HeightmapCompute computeWhole)
    : options_(std::move(options)), computeWhole_(std::move(computeWhole)) {}

HeightmapUpdate HeightmapTracker::update(const OccupancyMap& map) {
  const auto start = std::chrono::steady_clock::now();
  HeightmapUpdate result;
  const bool sameMap = map_ == &map && map.changeCounter() >= counter_ && heightmap_.grid().resolution == map.model().resolution;
  map_ = nullptr;  // until this update completes: a throw below leaves the next one whole
  const HeightmapGrid grid = heightmapGrid(map, options_);
  const int32_t n = map.regionSize();
  const RegionColumnSpan span = spanOf(grid, n);
  const bool useMean = map.layers().has(kVoxelMeanLayer);

  // Per region column of the grid: how many regions lie in the band, and whether one changed.
  std::unordered_map<RegionKey, uint32_t, RegionKeyHash> counts;
  std::unordered_set<RegionKey, RegionKeyHash> dirty;
  for (const auto& [key, region] : map.regions()) {
    if (!span.holds(key)) continue;
    const RegionKey column{key.x, key.y, 0};
    ++counts[column];
    if (regionStamp(region, useMean) > counter_) dirty.insert(column);
  }
  for (const auto& [column, count] : regionCounts_) {
    const auto now = counts.find(column);
    if (now == counts.end() || now->second != count) dirty.insert(column);
  }
  for (const auto& [column, count] : counts)
    if (!regionCounts_.contains(column)) dirty.insert(column);

  // (On the same map the resolution and the level count are the same: a grid that differs
  // has other columns or another band.)
  result.gridChanged = sameMap && !(heightmap_.grid() == grid);
  // Most of the grid changed: computing it whole costs about the same, and may be the GPU's.
  const uint64_t gridColumns = uint64_t(span.x1 - span.x0 + 1) * uint64_t(span.y1 - span.y0 + 1);
  if (!sameMap || 2 * uint64_t(dirty.size()) > gridColumns) {
    heightmap_ = computeWhole_(map, options_);
    result.whole = true;
    result.regionColumns = gridColumns;
    result.neighbourCells = uint64_t(grid.width) * grid.height;
  } else {
    updateColumns(map, grid, dirty, result);
  }
  regionCounts_ = std::move(counts);
  counter_ = map.changeCounter();
  map_ = &map;
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void HeightmapTracker::updateColumns(const OccupancyMap& map, const HeightmapGrid& grid,
                                     std::unordered_set<RegionKey, RegionKeyHash>& dirty, HeightmapUpdate& result) {
  const int32_t n = map.regionSize();
  const RegionColumnSpan span = spanOf(grid, n);
  std::vector<HeightmapRect> neighbourRects;
  if (result.gridChanged) {
    const HeightmapGrid old = heightmap_.grid();
    heightmap_ = movedOver(heightmap_, grid);
    // New cells: every region column reaching outside the old grid is computed.
    for (int32_t y = span.y0; y <= span.y1; ++y)
      for (int32_t x = span.x0; x <= span.x1; ++x)
        if (!inside(old, grid, n, {x, y, 0})) dirty.insert({x, y, 0});
    // The cells along the new grid's edges may have lost neighbours the old grid had.
    neighbourRects.push_back({0, 0, grid.width, 1});
    neighbourRects.push_back({0, grid.height - 1, grid.width, grid.height});
    neighbourRects.push_back({0, 0, 1, grid.height});
    neighbourRects.push_back({grid.width - 1, 0, grid.width, grid.height});
  }
  // Columns outside the grid (dropped from it) are gone with it.
  std::vector<RegionKey> columns;
  for (const RegionKey& column : dirty)
    if (column.x >= span.x0 && column.x <= span.x1 && column.y >= span.y0 && column.y <= span.y1) columns.push_back(column);
  std::sort(columns.begin(), columns.end(), [](const RegionKey& a, const RegionKey& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });

  // Dirty columns start absent again (the column pass writes present levels only).
  const gpu::HeightmapCell absent = heightmapAbsentCell();
  for (const RegionKey& column : columns) {
    const HeightmapRect r = cellsOf(grid, n, column, 0);
    for (uint32_t y = r.y0; y < r.y1; ++y)
      for (uint32_t x = r.x0; x < r.x1; ++x) {
        for (uint32_t level = 0; level < grid.levels; ++level) heightmap_.cell(level, x, y) = absent;
        heightmap_.columnFlags()[size_t(y) * grid.width + x] = 0;
      }
    neighbourRects.push_back(cellsOf(grid, n, column, 1));
  }
  const HeightmapLimits limits = heightmapLimits(options_, grid.resolution);
  heightmapColumnPassCpu(map, limits, columns, heightmap_);
  heightmapNeighbourPassCpu(heightmap_, limits, neighbourRects);
  for (const HeightmapRect& r : neighbourRects) result.neighbourCells += uint64_t(r.x1 - r.x0) * (r.y1 - r.y0);
  result.regionColumns = columns.size();
}

}  // namespace voxen

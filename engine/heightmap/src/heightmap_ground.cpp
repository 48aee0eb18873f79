// The ground's level per column: a fixed level, or a breadth-first fill from a seed over the
// heightmap's steps (the links its neighbour pass measures: each neighbour's nearest level).
#include "voxen/heightmap/heightmap_ground.hpp"

#include <cmath>
#include <cstdlib>
#include <deque>
#include <sstream>

#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

[[noreturn]] void badSeed(const std::string& text) {
  throw SettingError(SettingError::Kind::Invalid, "GroundSeed", "the seed point", text);
}

// The level of column (x, y) nearest in height to `h` (the first of equals, as the neighbour
// pass picks), or -1 when the column has none.
int nearestLevel(const Heightmap& hm, uint32_t x, uint32_t y, int64_t h, int64_t* distance) {
  int best = -1;
  int64_t bestDistance = INT64_MAX;
  for (uint32_t level = 0; level < hm.levels() && hm.present(level, x, y); ++level) {
    const int64_t d = std::llabs(int64_t(hm.cell(level, x, y).height) - h);
    if (d < bestDistance) best = int(level), bestDistance = d;
  }
  if (distance) *distance = bestDistance;
  return best;
}

}  // namespace

GroundLevels groundAtLevel(const Heightmap& heightmap, uint32_t level) {
  GroundLevels ground{heightmap.width(), heightmap.height(), {}, 0};
  ground.levels.assign(size_t(ground.width) * ground.height, -1);
  if (level >= heightmap.levels()) return ground;
  for (uint32_t y = 0; y < ground.height; ++y)
    for (uint32_t x = 0; x < ground.width; ++x)
      if (heightmap.present(level, x, y)) ground.levels[size_t(y) * ground.width + x] = int8_t(level);
  return ground;
}

GroundLevels groundFromSeed(const Heightmap& heightmap, const glm::dvec3& seed, int8_t unreached) {
  GroundLevels ground{heightmap.width(), heightmap.height(), {}, 0};
  const double res = heightmap.resolution();
  const double fx = std::floor(seed.x / res) - heightmap.grid().gridX, fy = std::floor(seed.y / res) - heightmap.grid().gridY;
  if (!(fx >= 0 && fy >= 0 && fx < ground.width && fy < ground.height)) {
    std::ostringstream s;
    s << "{} (" << seed.x << ", " << seed.y << ") m lies outside the heightmap's columns, x [" << heightmap.columnMinX(0)
      << ", " << heightmap.columnMinX(ground.width) << ") y [" << heightmap.rowMinY(0) << ", " << heightmap.rowMinY(ground.height)
      << ") m";
    badSeed(s.str());
  }
  const uint32_t sx = uint32_t(fx), sy = uint32_t(fy);
  const int64_t seedUnits = std::llround(seed.z / res * gpu::kHeightUnits);
  const int start = nearestLevel(heightmap, sx, sy, seedUnits, nullptr);
  if (start < 0) {
    std::ostringstream s;
    s << "{} (" << seed.x << ", " << seed.y << ", " << seed.z << ") m: its column has no level to stand on";
    badSeed(s.str());
  }
  const int64_t maxStep = int64_t(std::floor(heightmap.options().maxStep / res * gpu::kHeightUnits + 1e-9));
  std::vector<int8_t> levels(size_t(ground.width) * ground.height, -1);
  std::deque<std::pair<uint32_t, uint32_t>> queue{{sx, sy}};
  levels[size_t(sy) * ground.width + sx] = int8_t(start);
  ground.reached = 1;
  constexpr int kDx[4] = {1, 0, -1, 0}, kDy[4] = {0, 1, 0, -1};
  while (!queue.empty()) {
    const auto [x, y] = queue.front();
    queue.pop_front();
    const int64_t h = heightmap.cell(uint32_t(levels[size_t(y) * ground.width + x]), x, y).height;
    for (int d = 0; d < 4; ++d) {
      const int64_t nx = int64_t(x) + kDx[d], ny = int64_t(y) + kDy[d];
      if (nx < 0 || ny < 0 || nx >= ground.width || ny >= ground.height) continue;
      int8_t& next = levels[size_t(ny) * ground.width + size_t(nx)];
      if (next >= 0) continue;  // reached already, in as few steps or fewer
      int64_t step = 0;
      const int level = nearestLevel(heightmap, uint32_t(nx), uint32_t(ny), h, &step);
      if (level < 0 || step > maxStep) continue;
      next = int8_t(level);
      ++ground.reached;
      queue.push_back({uint32_t(nx), uint32_t(ny)});
    }
  }
  for (int8_t& level : levels)
    if (level < 0) level = unreached;
  // An `unreached` level a column lacks is no level.
  if (unreached >= 0)
    for (uint32_t y = 0; y < ground.height; ++y)
      for (uint32_t x = 0; x < ground.width; ++x) {
        int8_t& level = levels[size_t(y) * ground.width + x];
        if (level >= 0 && !heightmap.present(uint32_t(level), x, y)) level = -1;
      }
  ground.levels = std::move(levels);
  return ground;
}

Heightmap groundLevelHeightmap(const Heightmap& heightmap, const GroundLevels& ground) {
  HeightmapGrid grid = heightmap.grid();
  grid.levels = 1;
  HeightmapOptions options = heightmap.options();
  options.levels = 1;
  Heightmap one(grid, options);
  for (uint32_t y = 0; y < grid.height; ++y)
    for (uint32_t x = 0; x < grid.width; ++x) {
      const int8_t level = ground.level(x, y);
      if (level >= 0) one.cell(0, x, y) = heightmap.cell(uint32_t(level), x, y);
    }
  one.columnFlags() = heightmap.columnFlags();
  return one;
}

}  // namespace voxen

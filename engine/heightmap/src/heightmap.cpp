// HeightmapOptions' checks, the integers both implementations derive from them, the grid a
// heightmap covers, and the cells' metres and degrees.
#include "voxen/heightmap/heightmap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "heightmap_internal.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

std::string metres(double v) {
  std::ostringstream s;
  s << v << " m";
  return s.str();
}

// Voxel index range of the centres within [lo, hi] (metres) on one axis.
void centreRange(double lo, double hi, double resolution, int64_t& first, int64_t& last) {
  first = int64_t(std::ceil(lo / resolution - 0.5));
  last = int64_t(std::floor(hi / resolution - 0.5));
}


}  // namespace

namespace {

[[noreturn]] void invalid(const char* field, const char* words, const std::string& text) {
  throw SettingError(SettingError::Kind::Invalid, std::string("HeightmapOptions::") + field, words, text);
}

}  // namespace

void HeightmapOptions::validate(double resolution) const {
  if (!(robotHeight > 0) || !std::isfinite(robotHeight))
    invalid("robotHeight", "the robot height", "{} must be a positive number of metres (got " + metres(robotHeight) + ")");
  if (robotHeight < resolution)
    invalid("robotHeight", "the robot height",
            "{} " + metres(robotHeight) + " is below one voxel of the map (" + metres(resolution) +
                "): a robot must be at least one voxel high");
  if (levels == 0 || levels > gpu::kMaxHeightmapLevels)
    invalid("levels", "the level count",
            "{} must be in 1.." + std::to_string(gpu::kMaxHeightmapLevels) + " (got " + std::to_string(levels) + ")");
  if (!(maxSlopeDegrees >= 0 && maxSlopeDegrees < 90))
    invalid("maxSlopeDegrees", "the largest slope", "{} must be in [0, 90) degrees (got " + std::to_string(maxSlopeDegrees) + ")");
  if (!(maxStep >= 0) || !std::isfinite(maxStep))
    invalid("maxStep", "the largest step", "{} must be >= 0 metres (got " + metres(maxStep) + ")");
  if (clearanceMargin && (!(*clearanceMargin >= 0) || !std::isfinite(*clearanceMargin)))
    invalid("clearanceMargin", "the clearance margin", "{} must be >= 0 metres (got " + metres(*clearanceMargin) + ")");
  if (box) {
    for (int a = 0; a < 3; ++a)
      if (!(box->min[a] <= box->max[a]) || !std::isfinite(box->min[a]) || !std::isfinite(box->max[a]))
        invalid("box", "the box", "{}: the minimum must not exceed the maximum on any axis, and both be finite");
  }
}

HeightmapLimits heightmapLimits(const HeightmapOptions& options, double resolution) {
  HeightmapLimits limits;
  // 1e-9: a height that is a whole number of voxels as written (0.8 / 0.1) stays that number.
  limits.requiredRoom = uint32_t(std::max(1.0, std::ceil(options.robotHeight / resolution - 1e-9)));
  const double margin = options.clearanceMargin.value_or(options.robotHeight / 2);
  limits.marginRoom = uint32_t(std::ceil(margin / resolution - 1e-9));
  limits.maxStepUnits = int32_t(std::min(double(std::numeric_limits<int32_t>::max()),
                                         std::floor(options.maxStep / resolution * gpu::kHeightUnits + 1e-9)));
  // Gradients span two cells: tan(slope) = gradient / (2 * kHeightUnits).
  const double g = std::tan(options.maxSlopeDegrees * M_PI / 180.0) * 2.0 * gpu::kHeightUnits;
  limits.maxGradientSquared = uint64_t(std::min(9.0e18, std::floor(g * g)));
  return limits;
}

HeightmapGrid heightmapGrid(const OccupancyMap& map, const HeightmapOptions& options) {
  const double res = map.model().resolution;
  options.validate(res);
  if (map.regions().empty()) throw Error("the map has no regions: nothing to make a heightmap of");
  const int32_t n = map.regionSize();
  RegionKey lo{INT32_MAX, INT32_MAX, INT32_MAX}, hi{INT32_MIN, INT32_MIN, INT32_MIN};
  for (const auto& [key, region] : map.regions()) {
    lo = {std::min(lo.x, key.x), std::min(lo.y, key.y), std::min(lo.z, key.z)};
    hi = {std::max(hi.x, key.x), std::max(hi.y, key.y), std::max(hi.z, key.z)};
  }
  int64_t first[3] = {int64_t(lo.x) * n, int64_t(lo.y) * n, int64_t(lo.z) * n};
  int64_t last[3] = {int64_t(hi.x) * n + n - 1, int64_t(hi.y) * n + n - 1, int64_t(hi.z) * n + n - 1};
  if (options.box) {
    for (int a = 0; a < 3; ++a) {
      int64_t f, l;
      centreRange(options.box->min[a], options.box->max[a], res, f, l);
      const int64_t mapFirst = first[a], mapLast = last[a];
      first[a] = std::max(first[a], f);
      last[a] = std::min(last[a], l);
      if (first[a] > last[a]) {
        std::ostringstream s;
        s << "{} lies outside the map: on " << "xyz"[a] << " the box spans [" << options.box->min[a] << ", "
          << options.box->max[a] << "] m, the map's regions [" << double(mapFirst) * res << ", "
          << double(mapLast + 1) * res << "] m";
        invalid("box", "the box", s.str());
      }
    }
  }
  if (last[2] - first[2] + 1 > kMaxHeightmapBandVoxels)
    throw SettingError(SettingError::Kind::Change, "HeightmapOptions::box", "the box",
                       "the heightmap's z band is " + std::to_string(last[2] - first[2] + 1) + " voxels deep, more than " +
                           std::to_string(kMaxHeightmapBandVoxels) + ": narrow it with {}");
  // A map with nothing occupied inside has no surface: say so rather than write an empty map.
  bool occupied = false;
  const float threshold = map.model().thresholdValue();
  for (const auto& [key, region] : map.regions()) {
    if (occupied) break;
    const std::span<const float> values = region.occupancy();
    for (uint32_t i = 0; i < values.size() && !occupied; ++i) {
      if (!isObserved(values[i]) || values[i] < threshold) continue;
      const VoxelCoord v = map.voxelOf(key, i);
      occupied = v.x >= first[0] && v.x <= last[0] && v.y >= first[1] && v.y <= last[1] && v.z >= first[2] && v.z <= last[2];
    }
  }
  if (!occupied)
  {
    if (options.box) invalid("box", "the box", "the map has no occupied voxel inside {}: no surface to stand on");
    throw Error("the map has no occupied voxel: no surface to stand on");
  }
  HeightmapGrid grid;
  grid.gridX = int32_t(first[0]);
  grid.gridY = int32_t(first[1]);
  grid.width = uint32_t(last[0] - first[0] + 1);
  grid.height = uint32_t(last[1] - first[1] + 1);
  grid.zLow = int32_t(first[2]);
  grid.zHigh = int32_t(last[2]);
  grid.resolution = res;
  grid.levels = options.levels;
  return grid;
}

Heightmap::Heightmap(HeightmapGrid grid, HeightmapOptions options)
    : grid_(grid), options_(std::move(options)) {
  const size_t columns = size_t(grid_.width) * grid_.height;
  cells_.assign(columns * grid_.levels, heightmapAbsentCell());
  columnFlags_.assign(columns, 0u);
}

double Heightmap::heightMetres(uint32_t level, uint32_t x, uint32_t y) const {
  if (!present(level, x, y)) return std::nan("");
  return double(cell(level, x, y).height) / gpu::kHeightUnits * grid_.resolution;
}

double Heightmap::clearanceMetres(uint32_t level, uint32_t x, uint32_t y) const {
  if (!present(level, x, y)) return std::nan("");
  const uint32_t room = cell(level, x, y).room;
  return room == gpu::kOpenAbove ? std::numeric_limits<double>::infinity() : double(room) * grid_.resolution;
}

double Heightmap::slopeDegrees(uint32_t level, uint32_t x, uint32_t y) const {
  if (!present(level, x, y)) return std::nan("");
  const gpu::HeightmapCell& c = cell(level, x, y);
  const double g = std::hypot(double(c.gradientX), double(c.gradientY)) / (2.0 * gpu::kHeightUnits);
  return std::atan(g) * 180.0 / M_PI;
}

}  // namespace voxen

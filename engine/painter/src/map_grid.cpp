#include "voxen/painter/map_grid.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen {

namespace {

// Samples between the occupied voxels and the grid's edge: the border layer the painter
// keeps empty, and one more so that the surface around a boundary voxel is whole.
constexpr int32_t kPadding = 2;

uint32_t roundUpToBlock(int64_t n) {
  const int64_t b = gpu::kBlockCells;
  return uint32_t(std::max<int64_t>(2 * b, (n + b - 1) / b * b));
}

}  // namespace

uint32_t heightColor(float fraction) {
  const float t = std::clamp(fraction, 0.0f, 1.0f);
  const glm::vec3 stops[] = {{0.20f, 0.30f, 0.85f}, {0.15f, 0.75f, 0.85f}, {0.30f, 0.80f, 0.35f},
                             {0.95f, 0.85f, 0.25f}, {0.90f, 0.30f, 0.20f}};
  const float x = t * 4.0f;
  const int i = std::min(int(x), 3);
  const glm::vec3 c = glm::mix(stops[i], stops[i + 1], x - float(i));
  auto byte = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return byte(c.r) | byte(c.g) << 8 | byte(c.b) << 16 | 0xff000000u;
}

MapGrid gridFromOccupancy(const OccupancyMap& map, const MapGridOptions& options) {
  const double res = map.model().resolution;
  const bool hasLo = options.cropMin.has_value(), hasHi = options.cropMax.has_value();
  const VoxelCoord cropLo = hasLo ? map.voxelAt(*options.cropMin) : VoxelCoord{};
  const VoxelCoord cropHi = hasHi ? map.voxelAt(*options.cropMax) : VoxelCoord{};
  auto inCrop = [&](const VoxelCoord& v) {
    if (hasLo && (v.x < cropLo.x || v.y < cropLo.y || v.z < cropLo.z)) return false;
    if (hasHi && (v.x > cropHi.x || v.y > cropHi.y || v.z > cropHi.z)) return false;
    return true;
  };
  // First the occupied voxels' bounds and count, storing nothing: the grid's size is checked
  // before anything proportional to the map (a far stray voxel, a map of a billion occupied
  // voxels) is allocated.
  VoxelCoord lo{INT32_MAX, INT32_MAX, INT32_MAX}, hi{INT32_MIN, INT32_MIN, INT32_MIN};
  uint64_t occupied = 0;
  auto forEachOccupied = [&](auto&& visit) {
    for (const auto& [key, region] : map.regions())
      for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
        if (map.classify(region.occupancy()[i]) != VoxelClass::Occupied) continue;
        const VoxelCoord v = map.voxelOf(key, i);
        if (inCrop(v)) visit(v);
      }
  };
  forEachOccupied([&](const VoxelCoord& v) {
    ++occupied;
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  });
  if (occupied == 0) throw Error("the map has no occupied voxels" + std::string(hasLo || hasHi ? " inside the crop box" : "") + " to render");
  const int64_t extent[3] = {int64_t(hi.x) - lo.x + 1, int64_t(hi.y) - lo.y + 1, int64_t(hi.z) - lo.z + 1};
  const uint32_t nx = roundUpToBlock(std::min<int64_t>(extent[0] + 2 * kPadding, int64_t(1) << 30)),
                 ny = roundUpToBlock(std::min<int64_t>(extent[1] + 2 * kPadding, int64_t(1) << 30)),
                 nz = roundUpToBlock(std::min<int64_t>(extent[2] + 2 * kPadding, int64_t(1) << 30));
  const uint64_t samples = uint64_t(nx) * ny * nz;  // at most 2^90 would overflow: the axes are capped below
  const bool axisTooLong = nx > 4096 || ny > 4096 || nz > 4096;
  if (axisTooLong || samples > options.maxSamples)
    throw SettingError(SettingError::Kind::Change, "MapGridOptions::crop", "a crop box",
                       "the occupied voxels span " + std::to_string(extent[0]) + " x " + std::to_string(extent[1]) + " x " +
                           std::to_string(extent[2]) + " voxels, a grid of " +
                           (axisTooLong ? std::string("more than 4096 samples on an axis")
                                        : std::to_string(samples) + " samples") +
                           " (limit " + std::to_string(options.maxSamples) +
                           ", at most 4096 per axis): render a part of it with {}");
  // Density and colour per sample, then the occupied voxels' coordinates.
  checkMemoryBudget(samples * (sizeof(float) + sizeof(uint32_t)) + occupied * sizeof(VoxelCoord) + options.heldBytes,
                    options.memoryBudgetBytes,
                    "a render grid of " + std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) +
                        " samples for " + std::to_string(occupied) + " occupied voxels" +
                        (options.heldBytes ? " (with the " + mebibytes(options.heldBytes) + " already held)" : ""),
                    options.budgetHint);
  std::vector<VoxelCoord> voxels;
  voxels.reserve(size_t(occupied));
  forEachOccupied([&](const VoxelCoord& v) { voxels.push_back(v); });

  MapGrid result;
  result.occupiedVoxels = occupied;
  // Sample s of the grid is voxel lo - kPadding + s, placed at that voxel's centre.
  const VoxelCoord first{lo.x - kPadding, lo.y - kPadding, lo.z - kPadding};
  result.offset = map.voxelCentre(first);
  result.occupiedMin = map.voxelCentre(lo) - result.offset - glm::dvec3(0.5 * res);
  result.occupiedMax = map.voxelCentre(hi) - result.offset + glm::dvec3(0.5 * res);
  result.grid = DensityGrid(nx, ny, nz, float(res));
  const float zSpan = float(std::max<int64_t>(extent[2] - 1, 1));
  for (const VoxelCoord& v : voxels) {
    const size_t s = result.grid.index(uint32_t(v.x - first.x), uint32_t(v.y - first.y), uint32_t(v.z - first.z));
    result.grid.density[s] = 1.0f;
    result.grid.color[s] = heightColor(float(v.z - lo.z) / zSpan);
  }
  // The grid frame's origin is the centre of voxel `first`, so voxel v's centre lies at
  // (v - first) * res along each axis.
  std::vector<int32_t> axis(voxels.size());
  for (int a = 0; a < 3; ++a) {
    for (size_t i = 0; i < voxels.size(); ++i) axis[i] = (&voxels[i].x)[a];
    auto at = [&](double fraction) {
      auto nth = axis.begin() + std::ptrdiff_t(fraction * double(axis.size() - 1));
      std::nth_element(axis.begin(), nth, axis.end());
      return *nth;
    };
    const int32_t origin = (&first.x)[a];
    result.bulkMin[a] = (at(0.01) - origin) * res - 0.5 * res;
    result.bulkMax[a] = (at(0.99) - origin) * res + 0.5 * res;
  }
  return result;
}

}  // namespace voxen

#include "voxen/clearance/floor_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

namespace voxen {

namespace {

constexpr uint64_t kMinimumPerLayer = 100;  // fewer voxels in a layer say nothing about it

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

FloorDominance floorDominance(const OccupancyMap& map, const ClearanceOptions& options, std::optional<int32_t> layer) {
  FloorDominance result;
  if (!map.layout().has(clearanceLayer())) return result;
  const int32_t n = map.regionSize();
  // The floor: the voxel layer with the most occupied voxels (a floor or the ground is the
  // largest level surface a scan of a building or a street sees).
  std::map<int32_t, uint64_t> occupiedPerLayer;
  for (const auto& [key, region] : map.regions())
    for (size_t i = 0; i < map.voxelsPerRegion(); ++i)
      if (map.classify(region.occupancy()[i]) == VoxelClass::Occupied) ++occupiedPerLayer[key.z * n + int32_t(i / size_t(n * n))];
  uint64_t most = 0;
  for (const auto& [z, count] : occupiedPerLayer)
    if (count > most) most = count, result.floorLayer = z;
  // A floor the settings leave out is no obstacle.
  if (most == 0 || !options.band(map.model()).contains(result.floorLayer)) return result;

  const double step = map.model().resolution * options.axisScale.z;  // one voxel up, in clearance metres
  // Every n-th voxel of a big map: about 2^20 looked at.
  uint64_t voxels = 0;
  for (const auto& [key, region] : map.regions())
    if (!layer || key.z == floorDiv(*layer, n)) voxels += layer ? uint64_t(n) * n : map.voxelsPerRegion();
  const uint64_t stride = std::max<uint64_t>(1, voxels >> 20);
  struct Counts {
    uint64_t sampled = 0, capped = 0;
    double largest = 0.0;
  };
  std::map<int32_t, Counts> perLayer;
  uint64_t index = 0;
  for (const auto& [key, region] : map.regions()) {
    if (layer && key.z != floorDiv(*layer, n)) continue;
    const auto clearance = region.values<float>(clearanceLayer());
    const size_t first = layer ? size_t(*layer - key.z * n) * size_t(n) * n : 0;
    const size_t last = layer ? first + size_t(n) * n : map.voxelsPerRegion();
    for (size_t i = first; i < last; ++i, ++index) {
      if (index % stride) continue;
      const float c = clearance[i];
      if (!(c > 0.0f) || map.classify(region.occupancy()[i]) != VoxelClass::Free) continue;
      const int32_t z = key.z * n + int32_t(i / size_t(n * n));
      if (z <= result.floorLayer) continue;
      Counts& counts = perLayer[z];
      ++counts.sampled, ++result.sampled;
      counts.largest = std::max(counts.largest, double(c));
      // The height above the floor's voxels, within a voxel and a half: the floor (straight
      // below or a little to the side) is the nearest obstacle.
      const double height = double(z - result.floorLayer) * step;
      if (std::abs(double(c) - height) > 1.5 * step) continue;
      ++counts.capped, ++result.capped;
    }
  }
  // The floor caps a layer when nothing in it is farther from an obstacle than from the floor
  // (its picture's colour scale tops out at the height above the floor) and the cap binds
  // (at least 20 voxels and a fiftieth of the layer's are that far: not only a short range).
  for (const auto& [z, counts] : perLayer) {
    const double height = double(z - result.floorLayer) * step;
    if (counts.sampled < kMinimumPerLayer || counts.largest > height + 1.5 * step || counts.capped < 20 ||
        counts.capped * 50 < counts.sampled)
      continue;
    if (result.layers++ == 0) result.firstLayer = z;
    result.lastLayer = z;
    result.largestShare = std::max(result.largestShare, double(counts.capped) / double(counts.sampled));
  }
  return result;
}

std::string floorWarning(const FloorDominance& floor, double resolution, const std::string& ignoreBelowSetting) {
  const std::string where = floor.layers == 1 ? "in voxel layer " + std::to_string(floor.firstLayer)
                                              : "in " + std::to_string(floor.layers) + " voxel layers from " +
                                                    std::to_string(floor.firstLayer) + " to " + std::to_string(floor.lastLayer);
  return where + " (z " + number(floor.firstLayer * resolution) + " to " + number((floor.lastLayer + 1) * resolution) +
         " m) the floor caps the clearance (no free voxel there is farther from an obstacle than from the floor, up to " +
         std::to_string(int(std::lround(100.0 * floor.largestShare))) + " % are exactly that far; the floor: layer " +
         std::to_string(floor.floorLayer) + ", z " + number(floor.floorLayer * resolution) + " to " +
         number((floor.floorLayer + 1) * resolution) +
         " m): the field shows the height above the floor, not the room a ground robot has; leave the floor out (e.g. " +
         ignoreBelowSetting + number((floor.floorLayer + 2) * resolution) + ", just above it)";
}

}  // namespace voxen

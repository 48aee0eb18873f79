#include "map_products.hpp"

#include <algorithm>

#include "voxen/export/heightmap_export.hpp"

namespace voxen_ros {

GridData gridOf(const voxen::Heightmap& heightmap, uint32_t level, std::optional<uint32_t> maxCost) {
  const std::vector<uint8_t> pixels = voxen::nav2TrinaryPixels(heightmap, {.level = level, .maxCost = maxCost});
  GridData grid;
  const uint32_t w = heightmap.width(), h = heightmap.height();
  grid.width = w;
  grid.height = h;
  grid.resolution = float(heightmap.resolution());
  grid.originX = heightmap.columnMinX(0);
  grid.originY = heightmap.rowMinY(0);
  grid.cells.resize(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y) {
    // The PGM's rows are top first (the largest y); the grid's row 0 is the lowest y.
    const uint8_t* row = pixels.data() + size_t(h - 1 - y) * w;
    for (uint32_t x = 0; x < w; ++x)
      grid.cells[size_t(y) * w + x] = row[x] == 254 ? int8_t(0) : row[x] == 0 ? int8_t(100) : int8_t(-1);
  }
  return grid;
}

VoxelData occupiedVoxelsOf(const voxen::OccupancyMap& map) {
  std::vector<voxen::RegionKey> keys;
  keys.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  VoxelData out;
  out.resolution = map.model().resolution;
  for (const voxen::RegionKey& key : keys) {
    const std::span<const float> values = map.regions().at(key).occupancy();
    for (uint32_t i = 0; i < values.size(); ++i) {
      if (map.classify(values[i]) != voxen::VoxelClass::Occupied) continue;
      const glm::dvec3 c = map.voxelCentre(map.voxelOf(key, i));
      out.xyz.insert(out.xyz.end(), {float(c.x), float(c.y), float(c.z)});
      out.logOdds.push_back(values[i]);
    }
  }
  return out;
}

}  // namespace voxen_ros

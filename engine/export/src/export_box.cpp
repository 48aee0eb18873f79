#include "voxen/export/export_box.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "voxen/map/decimal_voxel.hpp"

namespace voxen {

uint64_t cropToBox(OccupancyMap& map, const ExportBox& box) {
  const double res = map.model().resolution;
  const int64_t n = map.regionSize();
  int64_t lo[3], hi[3];  // the voxels kept on each axis (inclusive)
  for (int a = 0; a < 3; ++a) {
    lo[a] = firstVoxelCentredAtOrAbove(box.min[a], res);
    hi[a] = lastVoxelCentredAtOrBelow(box.max[a], res);
  }
  std::vector<RegionKey> keys;
  for (const auto& [key, region] : map.regions()) keys.push_back(key);
  uint64_t cleared = 0;
  for (const RegionKey& key : keys) {
    const int64_t origin[3] = {int64_t(key.x) * n, int64_t(key.y) * n, int64_t(key.z) * n};
    bool inside = true, outside = false;
    for (int a = 0; a < 3; ++a) {
      inside = inside && origin[a] >= lo[a] && origin[a] + n - 1 <= hi[a];
      outside = outside || origin[a] > hi[a] || origin[a] + n - 1 < lo[a];
    }
    if (inside) continue;
    Region& region = *map.findRegion(key);
    if (outside) {
      for (float v : region.occupancy()) cleared += isObserved(v);
      map.evictRegion(key);
      continue;
    }
    for (size_t i = 0; i < map.voxelsPerRegion(); ++i) {
      const int64_t at[3] = {origin[0] + int64_t(i % size_t(n)), origin[1] + int64_t(i / size_t(n) % size_t(n)),
                             origin[2] + int64_t(i / size_t(n * n))};
      if (at[0] >= lo[0] && at[0] <= hi[0] && at[1] >= lo[1] && at[1] <= hi[1] && at[2] >= lo[2] && at[2] <= hi[2]) continue;
      cleared += isObserved(region.occupancy()[i]);
      for (const LayerId id : map.layout().ids()) {
        const LayerType& type = layerType(id);
        std::byte* voxel = region.layers[id].data() + i * type.bytesPerVoxel;
        if (type.initialValue.empty()) std::memset(voxel, 0, type.bytesPerVoxel);
        else std::memcpy(voxel, type.initialValue.data(), type.bytesPerVoxel);
      }
    }
  }
  return cleared;
}

}  // namespace voxen

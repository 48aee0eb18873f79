// Mapper::bounds(): the box of the observed voxels, read from the synced host map.
#include <algorithm>

#include "voxen/mapper.hpp"

namespace voxen {

namespace {

// Inclusive voxel box, grown voxel by voxel.
struct VoxelBox {
  VoxelCoord lo, hi;
  bool any = false;

  void add(const VoxelCoord& v) {
    if (!any) {
      lo = hi = v;
      any = true;
      return;
    }
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  }
  // Whether every voxel of [first, last] is inside already (such a region cannot widen it).
  bool holds(const VoxelCoord& first, const VoxelCoord& last) const {
    return any && lo.x <= first.x && lo.y <= first.y && lo.z <= first.z && last.x <= hi.x && last.y <= hi.y &&
           last.z <= hi.z;
  }
};

std::optional<MapBounds> observedBounds(const OccupancyMap& map) {
  const int32_t n = map.regionSize();
  VoxelBox box;
  for (const auto& [key, region] : map.regions()) {
    const VoxelCoord first = map.voxelOf(key, 0);
    const VoxelCoord last{first.x + n - 1, first.y + n - 1, first.z + n - 1};
    if (box.holds(first, last)) continue;
    const std::span<const float> occupancy = region.occupancy();
    for (uint32_t i = 0; i < occupancy.size(); ++i)
      if (occupancy[i] != kUnobserved) box.add(map.voxelOf(key, i));
  }
  if (!box.any) return std::nullopt;
  const double r = map.model().resolution;
  MapBounds bounds;
  bounds.firstVoxel = box.lo;
  bounds.lastVoxel = box.hi;
  bounds.min = glm::dvec3(box.lo.x, box.lo.y, box.lo.z) * r;
  bounds.max = (glm::dvec3(box.hi.x, box.hi.y, box.hi.z) + 1.0) * r;
  return bounds;
}

}  // namespace

std::optional<MapBounds> Mapper::bounds() { return observedBounds(map()); }

}  // namespace voxen

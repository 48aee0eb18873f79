// Occupancy from the TSDF's surface: observed-by-frames, unobserved-by-rays voxels set
// occupied on and behind the surface, free in front (tsdf_occupancy.hpp).
#include "voxen/tsdf/tsdf_occupancy.hpp"

#include <atomic>
#include <cmath>
#include <vector>

#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/host/error.hpp"
#include "voxen/host/parallel_for.hpp"

namespace voxen {

TsdfOccupancyStats occupancyFromTsdf(OccupancyMap& map, double minWeight) {
  if (!map.layers().has(kTsdfLayer)) throw Error("the map has no 'tsdf' layer: no surface to take occupancy from");
  const uint32_t least = uint32_t(std::max(1.0, std::ceil(minWeight * gpu::kTsdfWeightUnit)));
  const float occupied = map.model().clampMax, free = map.model().clampMin;
  std::vector<Region*> regions;
  for (const auto& [key, region] : map.regions()) regions.push_back(map.findRegion(key));
  std::atomic<uint64_t> occupiedCount{0}, freeCount{0};
  std::vector<uint8_t> changed(regions.size(), 0);
  parallelFor(regions.size(), [&](size_t r) {
    const std::span<const gpu::TsdfVoxel> tsdf = std::as_const(*regions[r]).values<gpu::TsdfVoxel>(kTsdfLayer);
    const std::span<float> occupancy = regions[r]->occupancy();
    uint64_t o = 0, f = 0;
    for (size_t i = 0; i < tsdf.size(); ++i) {
      if (tsdf[i].weight < least || isObserved(occupancy[i])) continue;
      const bool inside = tsdf[i].distance <= 0;
      occupancy[i] = inside ? occupied : free;
      ++(inside ? o : f);
    }
    occupiedCount += o;
    freeCount += f;
    changed[r] = (o + f) > 0;
  });
  for (size_t r = 0; r < regions.size(); ++r)
    if (changed[r]) map.markOccupancyChanged(*regions[r]);
  return {occupiedCount, freeCount};
}

}  // namespace voxen

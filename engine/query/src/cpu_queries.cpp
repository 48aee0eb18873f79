#include "voxen/query/cpu_queries.hpp"

#include <string>

#include "voxen/clearance/clearance.hpp"
#include "voxen/gpu/query/query_shared.h"
#include "voxen/query/clearance_sample.hpp"
#include "voxen/query/query_prep.hpp"

namespace voxen {

std::vector<OccupancyAnswer> cpuOccupancy(const OccupancyMap& map, std::span<const glm::dvec3> points) {
  std::vector<OccupancyAnswer> answers(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const VoxelCoord voxel = queryPointVoxel(map.model(), points[i], i);
    const Region* region = map.findRegion(map.regionOf(voxel));
    const float value = region ? region->occupancy()[map.localIndex(voxel)] : kUnobserved;
    const QueryStatus status = !region ? QueryStatus::OutsideMap
                               : isObserved(value) ? QueryStatus::Observed
                                                   : QueryStatus::Unobserved;
    answers[i] = {value, map.classify(value), status};
  }
  return answers;
}

namespace {

// A voxel's log-odds, remembering the last region looked up: a walk stays in one region for
// many voxels, and the hash lookup costs more than the step.
class RegionReader {
 public:
  explicit RegionReader(const OccupancyMap& map) : map_(map) {}
  float value(const VoxelCoord& v) {
    const RegionKey key = map_.regionOf(v);
    if (!valid_ || !(key == key_)) {
      key_ = key;
      region_ = map_.findRegion(key);
      valid_ = true;
    }
    return region_ ? region_->occupancy()[map_.localIndex(v)] : kUnobserved;
  }

 private:
  const OccupancyMap& map_;
  RegionKey key_;
  const Region* region_ = nullptr;
  bool valid_ = false;
};

}  // namespace

std::vector<RayHit> cpuRaycast(const OccupancyMap& map, std::span<const QueryRay> rays, const RaycastOptions& options) {
  std::vector<RayHit> hits(rays.size());
  const float threshold = map.model().thresholdValue();
  RegionReader reader(map);
  for (size_t i = 0; i < rays.size(); ++i) {
    const PreparedQueryRay ray = prepareQueryRay(map.model(), rays[i], i);
    // Walked in segments of 64 faces to stop soon after the hit: segments visit the same
    // voxels with the same t as one walk does (ray_walk.hpp), so the GPU's segment length
    // does not matter.
    bool done = false;
    const uint32_t segments = segmentCount(ray.walk, 64);
    for (uint32_t s = 0; s < segments && !done; ++s)
      walkSegment(ray.walk, s, segments, false, [&](const VoxelCoord& v, float tEnter, float) {
        if (done) return;
        const float value = reader.value(v);
        const bool hit = isObserved(value) ? value >= threshold : options.unknownBlocks;
        if (!hit) return;
        hits[i] = finishRayHit(map, ray.metres, v, tEnter, value);
        done = true;
      });
    if (!done) hits[i] = missedRay(map, rays[i], i);
  }
  return hits;
}

std::vector<ClearanceSample> cpuClearance(const OccupancyMap& map, std::span<const glm::dvec3> points) {
  const LayerId layer = clearanceLayer();
  if (!map.layout().has(layer)) throw Error("the map has no clearance layer: compute clearance first");
  const float inverse = float(1.0 / map.model().resolution);
  std::vector<ClearanceSample> samples(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const ClearanceCell cell = clearanceCell(map.model(), points[i], i);
    float c[8];
    for (int k = 0; k < 8; ++k) {
      const VoxelCoord v{cell.lower.x + (k & 1), cell.lower.y + ((k >> 1) & 1), cell.lower.z + (k >> 2)};
      const Region* region = map.findRegion(map.regionOf(v));
      c[k] = region ? region->values<float>(layer)[map.localIndex(v)] : gpu::kQueryOutsideMapClearance;
    }
    samples[i] = clearanceSample(c, cell.fraction, inverse);
  }
  return samples;
}

BoxVoxels cpuVoxelsInBox(const OccupancyMap& map, const QueryBox& box, VoxelClass voxelClass, uint64_t maxBoxVoxels) {
  const BoxRange range = boxRange(map.model(), box, maxBoxVoxels);
  BoxVoxels out;
  for (uint64_t z = 0; z < range.dims[2]; ++z)
    for (uint64_t y = 0; y < range.dims[1]; ++y)
      for (uint64_t x = 0; x < range.dims[0]; ++x) {
        const VoxelCoord v{range.lower.x + int32_t(x), range.lower.y + int32_t(y), range.lower.z + int32_t(z)};
        if (map.classify(v) == voxelClass) out.voxels.push_back(v);
      }
  out.count = out.voxels.size();
  return out;
}

}  // namespace voxen

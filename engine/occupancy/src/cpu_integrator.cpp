#include "voxen/occupancy/cpu_integrator.hpp"

#include <glm/geometric.hpp>

#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/rejected_rays.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// Region lookups along a walk hit the same region many times in a row: remember the last.
class VoxelAccess {
 public:
  explicit VoxelAccess(OccupancyMap& map) : map_(map), n_(map.regionSize()) {}
  std::pair<Region*, uint32_t> at(const VoxelCoord& v) {
    int32_t lx = v.x - base_.x, ly = v.y - base_.y, lz = v.z - base_.z;
    if (!region_ || lx < 0 || ly < 0 || lz < 0 || lx >= n_ || ly >= n_ || lz >= n_) {
      const RegionKey key{floorDiv(v.x, n_), floorDiv(v.y, n_), floorDiv(v.z, n_)};
      region_ = &map_.region(key);
      base_ = {key.x * n_, key.y * n_, key.z * n_};
      lx = v.x - base_.x, ly = v.y - base_.y, lz = v.z - base_.z;
    }
    return {region_, uint32_t(lx + n_ * (ly + n_ * lz))};
  }
  float peek(const VoxelCoord& v) const { return map_.value(v); }

 private:
  OccupancyMap& map_;
  int32_t n_;
  Region* region_ = nullptr;
  VoxelCoord base_;  // first voxel of region_
};

float rayLength(const PreparedRay& r) { return std::sqrt(r.d[0] * r.d[0] + r.d[1] * r.d[1] + r.d[2] * r.d[2]); }

// Fixed-point traversal increment, the same conversion as the shader's.
uint64_t traversalUnits(float tEnter, float tExit, float length) {
  const float voxels = std::max(0.0f, tExit - tEnter) * length;
  return uint64_t(voxels * float(Region::kTraversalScale) + 0.5f);
}

// t at which the walk enters the sample voxel (0 when the ray stays in one voxel).
float sampleEnterT(const PreparedRay& r) {
  float t = 0.0f;
  for (int a = 0; a < 3; ++a)
    if (r.n[a] > 0) t = std::max(t, crossingT(r, a, r.n[a] - 1));
  return std::clamp(t, 0.0f, 1.0f);
}

}  // namespace

CpuIntegrator::CpuIntegrator(OccupancyMap& map, IntegrationOptions options) : map_(map), options_(options) {}

// A ray crossing more regions than the map may hold would fail part way; refuse it before
// walking, naming it (the GPU integrator does the same against its cache's slots).
void CpuIntegrator::checkRegionBudget(const PreparedRay& r, uint64_t index, const Ray& ray) const {
  const uint64_t regions = regionCountOnRay(r, map_.regionSize());
  if (regions > map_.regionLimit())
    throw Error(rayTooLongMessage(index, ray, regions, map_.regionLimit(), "the map's memory budget allows",
                                  map_.regionLimitHint().empty() ? "raise the map's region limit" : map_.regionLimitHint()));
}

void CpuIntegrator::integrate(std::span<const Ray> rays) {
  if (rays.empty()) return;
  if (!timeOriginSet_ && map_.regions().empty()) map_.setTimeOrigin(rays.front().time);
  timeOriginSet_ = true;
  const OccupancyModel& model = map_.model();
  const uint32_t layers = map_.layers();
  const float hit = model.hitValue(), miss = model.missValue(), threshold = model.thresholdValue();
  const bool reverse = !(options_.flags & kRayForwardWalk);
  const bool stopOnOccupied = options_.flags & kRayStopOnFirstOccupied;

  // Rays that cannot be walked are skipped and counted before anything is allocated for
  // them, exactly as the GPU integrator does.
  std::vector<PreparedRay> prepared;
  prepared.reserve(rays.size());
  for (size_t i = 0; i < rays.size(); ++i) {
    const RayFault fault = checkRay(rays[i], model, options_);
    if (fault != RayFault::None) {
      noteRejectedRay(stats_, raysSeen_ + i, rays[i], fault);
      continue;
    }
    bool clipped = false;
    prepared.push_back(prepareRay(rays[i], model, options_, &clipped));
    stats_.clippedRays += clipped;
    checkRegionBudget(prepared.back(), raysSeen_ + i, rays[i]);
  }
  raysSeen_ += rays.size();

  // Stop points are judged on the map as it was before this batch.
  std::vector<float> stopAt(prepared.size(), INFINITY);
  VoxelAccess access(map_);
  if (stopOnOccupied)
    for (size_t i = 0; i < prepared.size(); ++i)
      walkSegment(prepared[i], 0, 1, false, [&](const VoxelCoord& v, float tEnter, float) {
        if (stopAt[i] == INFINITY && isObserved(access.peek(v)) && access.peek(v) >= threshold) stopAt[i] = tEnter;
      });

  auto touch = [&](Region& region, uint32_t index, const PreparedRay& r) {
    if (layers & kLayerTouchTime) region.touchTime()[index] = std::max(region.touchTime()[index], r.touchTime);
  };
  for (size_t i = 0; i < prepared.size(); ++i) {
    const PreparedRay& r = prepared[i];
    const float length = rayLength(r);
    walkSegment(r, 0, 1, reverse, [&](const VoxelCoord& v, float tEnter, float tExit) {
      if (!(tEnter < stopAt[i])) return;
      const bool isSample = v == r.end;
      if (isSample && (r.flags & (kSampleHit | kSkipSample))) return;
      if (!isSample && v == r.start && (r.flags & kSkipOrigin)) return;
      auto [region, index] = access.at(v);
      region->occupancy()[index] = updatedValue(region->occupancy()[index], miss, model.clampMin, model.clampMax);
      if (layers & kLayerHitMiss) ++region->hitMiss()[index].misses;
      if (layers & kLayerTraversal) region->traversal()[index] += traversalUnits(tEnter, tExit, length);
      touch(*region, index, r);
      ++stats_.voxelUpdates;
    });
  }
  for (size_t i = 0; i < prepared.size(); ++i) {
    const PreparedRay& r = prepared[i];
    if (!(r.flags & kSampleHit)) continue;
    const float tEnter = sampleEnterT(r);
    if (tEnter > stopAt[i]) continue;  // an occupied sample voxel still gets its hit
    auto [region, index] = access.at(r.end);
    region->occupancy()[index] = updatedValue(region->occupancy()[index], hit, model.clampMin, model.clampMax);
    if (layers & kLayerHitMiss) ++region->hitMiss()[index].hits;
    if (layers & kLayerTraversal) region->traversal()[index] += traversalUnits(tEnter, 1.0f, rayLength(r));
    if (layers & kLayerVoxelMean) {
      VoxelMean& mean = region->mean()[index];
      ++mean.count;
      for (int a = 0; a < 3; ++a) mean.sum[a] += (r.meanPacked >> (10 * a)) & 1023u;
    }
    touch(*region, index, r);
    ++stats_.voxelUpdates;
  }
  stats_.rays += prepared.size();
  ++stats_.batches;
}

}  // namespace voxen

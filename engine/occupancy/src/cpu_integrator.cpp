#include "voxen/occupancy/cpu_integrator.hpp"

#include <glm/geometric.hpp>

#include "voxen/occupancy/ndt_params.hpp"
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
      map_.markValuesChanged(*region_);  // every access here is for an update (crossings: setOccupancy)
      base_ = {key.x * n_, key.y * n_, key.z * n_};
      lx = v.x - base_.x, ly = v.y - base_.y, lz = v.z - base_.z;
    }
    return {region_, uint32_t(lx + n_ * (ly + n_ * lz))};
  }
  float peek(const VoxelCoord& v) const { return map_.value(v); }
  // A voxel's new occupancy, telling the map when it crosses a class (what clearance's
  // incremental updates are driven by: OccupancyMap::markClassesChanged).
  void setOccupancy(Region& region, uint32_t index, float value) {
    float& stored = region.occupancy()[index];
    map_.markClassesChanged(region, classChanges(stored, value, threshold_));
    stored = value;
  }

 private:
  OccupancyMap& map_;
  int32_t n_;
  Region* region_ = nullptr;
  VoxelCoord base_;  // first voxel of region_
  float threshold_ = map_.model().thresholdValue();
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

// One ray's updates, shared by both orders so that they differ only in when each is applied.
class RayUpdates {
 public:
  RayUpdates(OccupancyMap& map, const NdtModel& ndt, IntegrationStats& stats)
      : access_(map), model_(map.model()), layers_(map.layers()), stats_(stats), hit_(model_.hitValue()),
        miss_(model_.missValue()), threshold_(model_.thresholdValue()), ndt_(ndt.mode != NdtMode::Off),
        tm_(ndt.mode == NdtMode::Tm) {
    if (ndt_) ndtParams_ = ndtParams(ndt, model_);
  }

  // t at which the walk enters the first voxel occupied in the map as it is now (INFINITY
  // when there is none): the ray stops before it.
  float stopPoint(const PreparedRay& r) {
    float stopAt = INFINITY;
    walkSegment(r, 0, 1, false, [&](const VoxelCoord& v, float tEnter, float) {
      if (stopAt == INFINITY && isObserved(access_.peek(v)) && access_.peek(v) >= threshold_) stopAt = tEnter;
    });
    return stopAt;
  }

  void misses(const PreparedRay& r, float stopAt, bool reverse) {
    const float length = rayLength(r);
    walkSegment(r, 0, 1, reverse, [&](const VoxelCoord& v, float tEnter, float tExit) {
      if (!(tEnter < stopAt)) return;
      const bool isSample = v == r.end;
      if (isSample && (r.flags & (kSampleHit | kSkipSample))) return;
      if (!isSample && v == r.start && (r.flags & kSkipOrigin)) return;
      auto [region, index] = access_.at(v);
      if (ndt_) {
        const gpu::NdtMissUpdate u = gpu::ndtMissUpdate(ndtVoxel(*region, index), ndtParams_, segmentIn(r, v), miss_);
        access_.setOccupancy(*region, index, updatedValue(region->occupancy()[index], u.delta, model_.clampMin, model_.clampMax));
        if (tm_) region->hitMiss()[index].misses += u.tmMiss;
      } else {
        access_.setOccupancy(*region, index, updatedValue(region->occupancy()[index], miss_, model_.clampMin, model_.clampMax));
      }
      if (layers_.has(kHitMissLayer) && !tm_) ++region->hitMiss()[index].misses;
      if (layers_.has(kTraversalLayer)) region->traversal()[index] += traversalUnits(tEnter, tExit, length);
      touch(*region, index, r);
      ++stats_.voxelUpdates;
    });
  }

  void hit(const PreparedRay& r, float stopAt) {
    if (!(r.flags & kSampleHit)) return;
    const float tEnter = sampleEnterT(r);
    if (tEnter > stopAt) return;  // an occupied sample voxel still gets its hit
    auto [region, index] = access_.at(r.end);
    if (layers_.has(kTraversalLayer)) region->traversal()[index] += traversalUnits(tEnter, 1.0f, rayLength(r));
    touch(*region, index, r);
    ++stats_.voxelUpdates;
    if (ndt_) {
      // The mean, the covariance, NDT-TM's counts and intensity and the occupancy together.
      const gpu::NdtVoxel folded = gpu::ndtFoldSample(ndtVoxel(*region, index), ndtParams_, r.meanPacked,
                                                      segmentIn(r, r.end), r.intensity, hit_, model_.clampMin,
                                                      model_.clampMax, tm_);
      storeNdtVoxel(*region, index, folded);
      if (layers_.has(kHitMissLayer) && !tm_) ++region->hitMiss()[index].hits;
      return;
    }
    access_.setOccupancy(*region, index, updatedValue(region->occupancy()[index], hit_, model_.clampMin, model_.clampMax));
    if (layers_.has(kHitMissLayer)) ++region->hitMiss()[index].hits;
    if (layers_.has(kVoxelMeanLayer)) {
      VoxelMean& mean = region->mean()[index];
      ++mean.count;
      for (int a = 0; a < 3; ++a) mean.sum[a] += (r.meanPacked >> (10 * a)) & 1023u;
    }
  }

 private:
  // The ray in voxel v's frame, as the shaders compute it.
  gpu::NdtSegment segmentIn(const PreparedRay& r, const VoxelCoord& v) const {
    return gpu::ndtSegmentInVoxel(r.o[0], r.o[1], r.o[2], r.d[0], r.d[1], r.d[2], r.start.x - v.x, r.start.y - v.y,
                                  r.start.z - v.z, ndtParams_.resolution);
  }
  gpu::NdtVoxel ndtVoxel(Region& region, uint32_t index) const {
    gpu::NdtVoxel v{};
    v.occupancy = region.occupancy()[index];
    const VoxelMean& mean = region.mean()[index];
    v.count = mean.count;
    v.sumX = mean.sum[0];
    v.sumY = mean.sum[1];
    v.sumZ = mean.sum[2];
    v.cov = region.values<gpu::NdtCovariance>(ndtCovarianceLayer())[index];
    if (tm_) {
      v.hits = region.hitMiss()[index].hits;
      v.misses = region.hitMiss()[index].misses;
      v.intensity = region.values<gpu::NdtIntensity>(ndtIntensityLayer())[index];
    }
    return v;
  }
  void storeNdtVoxel(Region& region, uint32_t index, const gpu::NdtVoxel& v) {
    access_.setOccupancy(region, index, v.occupancy);
    region.mean()[index] = VoxelMean{v.count, {v.sumX, v.sumY, v.sumZ}};
    region.values<gpu::NdtCovariance>(ndtCovarianceLayer())[index] = v.cov;
    if (tm_) {
      region.hitMiss()[index] = HitMiss{v.hits, v.misses};
      region.values<gpu::NdtIntensity>(ndtIntensityLayer())[index] = v.intensity;
    }
  }

  void touch(Region& region, uint32_t index, const PreparedRay& r) {
    if (layers_.has(kTouchTimeLayer)) region.touchTime()[index] = std::max(region.touchTime()[index], r.touchTime);
  }

  VoxelAccess access_;
  const OccupancyModel& model_;
  LayerSet layers_;
  IntegrationStats& stats_;
  float hit_, miss_, threshold_;
  bool ndt_, tm_;
  gpu::NdtParams ndtParams_{};
};

}  // namespace

CpuIntegrator::CpuIntegrator(OccupancyMap& map, IntegrationOptions options) : map_(map), options_(options) {
  if (options_.ndt.mode != NdtMode::Off) {
    checkNdtMap(options_.ndt, map_.layout());
    ndtParams(options_.ndt, map_.model());  // validates the model now rather than at the first ray
    if (options_.flags.has(RayFlag::StopOnFirstOccupied)) throw Error("NDT integration does not support stop-on-first-occupied");
    recordNdtSettings(map_, options_.ndt);
  }
}

// A ray crossing more regions than the map may hold would fail part way; refuse it before
// walking, naming it (the GPU integrator does the same against its cache's slots).
void CpuIntegrator::checkRegionBudget(const PreparedRay& r, uint64_t index, const Ray& ray) const {
  const uint64_t regions = regionCountOnRay(r, map_.regionSize());
  if (regions > map_.regionLimit())
    throw Error(rayTooLongMessage(index, ray, regions, map_.regionLimit(), "the map's memory budget allows",
                                  map_.regionLimitHint().empty() ? "raise the map's region limit" : map_.regionLimitHint()));
}

// Rays that cannot be walked are skipped and counted before anything is allocated for
// them, exactly as the GPU integrator does; a ray too long for the map's budget fails the
// batch before any of it is applied.
std::vector<PreparedRay> CpuIntegrator::prepareBatch(std::span<const Ray> rays) {
  std::vector<PreparedRay> prepared;
  prepared.reserve(rays.size());
  for (size_t i = 0; i < rays.size(); ++i) {
    const RayFault fault = checkRay(rays[i], map_.model(), options_);
    if (fault != RayFault::None) {
      noteRejectedRay(stats_, raysSeen_ + i, rays[i], fault);
      continue;
    }
    bool clipped = false;
    prepared.push_back(prepareRay(rays[i], map_.model(), options_, &clipped));
    stats_.clippedRays += clipped;
    checkRegionBudget(prepared.back(), raysSeen_ + i, rays[i]);
  }
  raysSeen_ += rays.size();
  return prepared;
}

void CpuIntegrator::integrate(std::span<const Ray> rays) {
  if (rays.empty()) return;
  if (!timeOriginSet_ && map_.regions().empty()) map_.setTimeOrigin(rays.front().time);
  timeOriginSet_ = true;
  const bool reverse = !(options_.flags.has(RayFlag::ForwardWalk));
  const bool stopOnOccupied = options_.flags.has(RayFlag::StopOnFirstOccupied);
  const std::vector<PreparedRay> prepared = prepareBatch(rays);
  RayUpdates updates(map_, options_.ndt, stats_);

  if (options_.order == UpdateOrder::Sequential || options_.order == UpdateOrder::OnePass) {
    // Each ray sees the map its predecessors left: stop point, misses, then its hit. (The
    // one-pass order is this with the rays of a batch concurrent; one at a time, it is this.)
    for (const PreparedRay& r : prepared) {
      const float stopAt = stopOnOccupied ? updates.stopPoint(r) : INFINITY;
      updates.misses(r, stopAt, reverse);
      updates.hit(r, stopAt);
    }
  } else {
    // The GPU's order: stop points judged on the map before this batch, then all misses,
    // then all hits.
    std::vector<float> stopAt(prepared.size(), INFINITY);
    if (stopOnOccupied)
      for (size_t i = 0; i < prepared.size(); ++i) stopAt[i] = updates.stopPoint(prepared[i]);
    for (size_t i = 0; i < prepared.size(); ++i) updates.misses(prepared[i], stopAt[i], reverse);
    for (size_t i = 0; i < prepared.size(); ++i) updates.hit(prepared[i], stopAt[i]);
  }
  stats_.rays += prepared.size();
  ++stats_.batches;
}

}  // namespace voxen

#include "voxen/occupancy/prepared_rays.hpp"

#include <algorithm>
#include <bit>

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/occupancy/ray_walk.hpp"

namespace voxen {

void PreparedRays::clear() {
  inputRays = 0;
  firstTime = 0.0;
  recordCount = 0;
  block = {};
  hostRecords.clear();
  regionOffsets.assign(1, 0);
  segmentOffsets.assign(1, 0);
  positions.clear();
  regionMin = regionMax = RegionKey{};
  skipped.clear();
  clippedRays = 0;
}

namespace {

void widen(RegionKey& low, RegionKey& high, const RegionKey& key) {
  low = {std::min(low.x, key.x), std::min(low.y, key.y), std::min(low.z, key.z)};
  high = {std::max(high.x, key.x), std::max(high.y, key.y), std::max(high.z, key.z)};
}

}  // namespace

void prepareRays(std::span<const Ray> rays, const OccupancyModel& model, const IntegrationOptions& options,
                 uint32_t maxCrossingsPerSegment, PreparedRays& out, RayRecordPool* pool) {
  out.clear();
  out.inputRays = uint32_t(rays.size());
  if (!rays.empty()) out.firstTime = rays.front().time;
  // Written in order and never read back: the pool's memory may be write-combined.
  gpu::GpuRay* records = nullptr;
  if (pool) {
    out.block = pool->acquire(uint32_t(rays.size()));
    records = out.block.records();
  } else {
    out.hostRecords.resize(rays.size());
    records = out.hostRecords.data();
  }
  out.regionOffsets.reserve(rays.size() + 1);
  out.segmentOffsets.reserve(rays.size() + 1);
  out.positions.reserve(rays.size());
  const VoxelToRegion regionOf(model.regionSize);
  uint64_t regionSum = 0, segmentSum = 0;
  uint32_t n = 0;
  for (size_t i = 0; i < rays.size(); ++i) {
    PreparedRay r;
    bool clipped = false;
    const RayFault fault = checkAndPrepareRay(rays[i], model, options, r, &clipped);
    if (fault != RayFault::None) {
      const PreparedRays::Problem problem = fault == RayFault::NonFinite ? PreparedRays::Problem::NonFinite
                                            : fault == RayFault::TooFar  ? PreparedRays::Problem::TooFar
                                                                         : PreparedRays::Problem::NonFiniteIntensity;
      out.skipped.push_back({uint32_t(i), problem, 0, rays[i]});
      continue;
    }
    // Counted from the end points, so an overlong ray is refused before anything is walked.
    const uint64_t regions = regionCountOnRay(r, model.regionSize);
    const uint32_t segments = segmentCount(r, maxCrossingsPerSegment);
    if (regions > gpu::kMaxRegionsPerRay || segments > gpu::kMaxSegmentsPerRay) {
      out.skipped.push_back({uint32_t(i), PreparedRays::Problem::TooLong, regions, rays[i]});
      continue;
    }
    out.clippedRays += clipped;
    const RegionKey from = regionOf(r.start), to = regionOf(r.end);
    if (n == 0) out.regionMin = out.regionMax = from;
    widen(out.regionMin, out.regionMax, from);
    widen(out.regionMin, out.regionMax, to);
    records[n++] = toGpuRay(r, segments, uint32_t(regionSum), uint32_t(segmentSum));
    regionSum += regions;
    segmentSum += segments;
    out.regionOffsets.push_back(regionSum);
    out.segmentOffsets.push_back(segmentSum);
    out.positions.push_back(uint32_t(i));
  }
  out.recordCount = n;
  if (!pool) out.hostRecords.resize(n);
}

}  // namespace voxen

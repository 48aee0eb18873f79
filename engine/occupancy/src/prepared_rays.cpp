#include "voxen/occupancy/prepared_rays.hpp"

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/occupancy/ray_walk.hpp"

namespace voxen {

void PreparedRays::clear() {
  inputRays = 0;
  firstTime = 0.0;
  records.clear();
  regionCounts.clear();
  positions.clear();
  skipped.clear();
  clippedRays = 0;
}

void prepareRays(std::span<const Ray> rays, const OccupancyModel& model, const IntegrationOptions& options,
                 uint32_t maxCrossingsPerSegment, PreparedRays& out) {
  out.clear();
  out.inputRays = uint32_t(rays.size());
  if (!rays.empty()) out.firstTime = rays.front().time;
  out.records.reserve(rays.size());
  out.regionCounts.reserve(rays.size());
  out.positions.reserve(rays.size());
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
    out.records.push_back(toGpuRay(r, segments, 0, 0));
    out.regionCounts.push_back(uint32_t(regions));
    out.positions.push_back(uint32_t(i));
  }
}

}  // namespace voxen

// Incremental clearance by changed voxels (issue 38, item 5): after a complete update, the next
// recomputes only the parts of regions within the padding of the obstacle voxels that changed
// (planClearanceUpdate + GpuClearance::computeParts), and the layer equals a full
// recomputation bit for bit (the CPU reference's).
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/clearance/clearance_changes.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"

namespace {

using namespace voxen;

size_t differingRegions(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.regions().size() == b.regions().size());
  size_t differing = 0;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other);
    const std::span<const float> x = region.values<float>(clearanceLayer()), y = other->values<float>(clearanceLayer());
    REQUIRE(x.size() == y.size());
    differing += std::memcmp(x.data(), y.data(), x.size_bytes()) != 0;
  }
  return differing;
}

const GpuClearanceOptions kSmall{.cacheBytes = 64ull << 20};

}  // namespace

TEST_CASE("Clearance parts: one changed voxel recomputes the box within the padding of it in each region it reaches",
          "[clearance][gpu][parts]") {
  OccupancyMap map = vt::clearance::freeMap(0.1, {-2, -1, -1}, {2, 1, 1});
  ClearanceOptions options;
  options.range = 1.0;  // padding 10 voxels
  REQUIRE(clearanceComputesParts(map.model(), options));
  Scheduler& scheduler = vt::gpu().scheduler;
  GpuClearance(scheduler, map, options, kSmall).compute();
  ClearanceBaseline baseline = clearanceBaseline(map, options);
  // Nothing changed: nothing to do.
  std::optional<ClearancePlan> plan = planClearanceUpdate(map, options, baseline, true);
  REQUIRE(plan);
  CHECK(plan->targets.empty());
  // Voxel (5, 5, 5) of region (0, 0, 0) becomes an obstacle: the box from -5 to 16 per axis
  // reaches the 8 regions with keys -1 and 0 on each axis.
  vt::clearance::setOccupied(map, {5, 5, 5});
  map.markOccupancyChanged(map.region({0, 0, 0}));
  plan = planClearanceUpdate(map, options, baseline, true);
  REQUIRE(plan);
  CHECK(plan->changedRegions == 1);
  REQUIRE(plan->targets.size() == 8);
  std::map<RegionKey, ClearanceTarget> byKey;
  for (const ClearanceTarget& t : plan->targets) byKey[t.key] = t;
  const ClearanceTarget& own = byKey.at({0, 0, 0});
  CHECK(own.lo == glm::ivec3(0));
  CHECK(own.hi == glm::ivec3(16));
  const ClearanceTarget& corner = byKey.at({-1, -1, -1});
  CHECK(corner.lo == glm::ivec3(27));
  CHECK(corner.hi == glm::ivec3(32));
  uint64_t voxels = 0;
  for (const ClearanceTarget& t : plan->targets) voxels += t.voxels();
  CHECK(voxels == 21ull * 21 * 21);  // the 21^3 box around the voxel, split among the regions
  // Whole regions where parts are not exact (another scale per axis): the same 8, whole.
  ClearanceOptions scaled = options;
  scaled.axisScale = {1.0, 1.0, 0.5};
  CHECK_FALSE(clearanceComputesParts(map.model(), scaled));
  GpuClearance(scheduler, map, options, kSmall).computeParts(plan->targets);
  OccupancyMap full = map;
  computeClearanceCpu(full, options);
  CHECK(differingRegions(map, full) == 0);
  // The baseline after the update describes the map: the same voxel again changes nothing.
  baseline = clearanceBaseline(map, options);
  map.markOccupancyChanged(map.region({0, 0, 0}));
  plan = planClearanceUpdate(map, options, baseline, true);
  REQUIRE(plan);
  CHECK(plan->targets.empty());
  // Other settings, or a region recomputed since by another caller: the baseline is refused.
  CHECK_FALSE(planClearanceUpdate(map, scaled, baseline, false));
  GpuClearance(scheduler, map, options, kSmall).compute(std::vector<RegionKey>{{2, 0, 0}});
  CHECK_FALSE(planClearanceUpdate(map, options, baseline, true));
  // A part of a region is refused where it would not be exact, and outside the region.
  GpuClearance scaledClearance(scheduler, map, scaled, kSmall);
  const ClearanceTarget part{{0, 0, 0}, glm::ivec3(0), glm::ivec3(16)};
  CHECK_THROWS_WITH(scaledClearance.computeParts(std::vector<ClearanceTarget>{part}),
                    Catch::Contains("needs the exact technique with one axis scale"));
  const ClearanceTarget outside{{0, 0, 0}, glm::ivec3(0), glm::ivec3(33)};
  CHECK_THROWS_WITH(GpuClearance(scheduler, map, options, kSmall).computeParts(std::vector<ClearanceTarget>{outside}),
                    Catch::Contains("is not a non-empty box within the region"));
}

TEST_CASE("Clearance parts: a lidar run scan by scan, updated by changed voxels, equals a full recomputation bit for bit",
          "[clearance][gpu][parts]") {
  const int scans = 5;
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(scans);
  const size_t perScan = rays.size() / scans;
  OccupancyModel model;
  model.resolution = 0.1;
  Scheduler& scheduler = vt::gpu().scheduler;
  for (bool unknownFree : {false, true}) {
    INFO((unknownFree ? "unknown free" : "unknown an obstacle"));
    ClearanceOptions options;
    options.range = 0.8;
    options.unknownFree = unknownFree;
    OccupancyMap map(model);
    // Made before the map has a clearance layer, and kept across the clearances (as the Mapper).
    GpuIntegrator integrator(scheduler, map, IntegrationOptions{},
                             GpuIntegratorOptions{.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16});
    std::optional<ClearanceBaseline> baseline;
    uint64_t partVoxels = 0, dirtyVoxels = 0, partRegions = 0, dirtyRegions = 0;
    const uint64_t regionVoxels = map.voxelsPerRegion();
    for (int scan = 0; scan < scans; ++scan) {
      INFO("scan " << scan);
      integrator.integrate(std::span<const Ray>(rays).subspan(scan * perScan, perScan));
      integrator.finish();
      GpuClearance clearance(scheduler, map, options, kSmall);
      const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
      std::optional<ClearancePlan> plan;
      if (baseline) {
        plan = planClearanceUpdate(map, options, *baseline, true);
        REQUIRE(plan);
        // Never more than the region stamps' rule; each part within its region.
        const std::set<RegionKey> due(dirty.begin(), dirty.end());
        for (const ClearanceTarget& t : plan->targets) {
          CHECK(due.count(t.key));
          partVoxels += t.voxels();
        }
        partRegions += plan->targets.size();
        dirtyRegions += dirty.size();
        dirtyVoxels += dirty.size() * regionVoxels;
        CHECK(clearance.computeParts(plan->targets).regions == plan->targets.size());
      } else {
        clearance.update();
      }
      baseline = clearanceBaseline(map, options);
      OccupancyMap full = map;
      computeClearanceCpu(full, options);
      CHECK(differingRegions(map, full) == 0);
    }
    // The parts are a fraction of the whole regions the stamps would recompute.
    INFO("recomputed " << partRegions << " regions, " << partVoxels << " voxels; the stamps' rule " << dirtyRegions
                       << " regions, " << dirtyVoxels << " voxels");
    CHECK(partRegions <= dirtyRegions);
    CHECK(partVoxels < dirtyVoxels);
    CHECK(partVoxels > 0);
  }
}

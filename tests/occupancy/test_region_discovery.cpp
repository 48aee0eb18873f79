// Region discovery on the GPU (issue 14) against the host's region walk (regionsOnRay): for
// every ray, the regions its list names, in walk order, its sample region and its segments
// must be exactly the host's, and the batch's distinct regions exactly their union.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "support/gpu_fixture.hpp"
#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/discovery_comparison.hpp"
#include "voxen/occupancy/region_discovery.hpp"
#include "voxen/testdata/awkward_rays.hpp"

namespace {

using namespace voxen;

void requireSameAsHost(const std::vector<Ray>& rays, double resolution, int32_t regionSize, uint32_t maxCrossings = 128) {
  OccupancyModel model;
  model.resolution = resolution;
  model.regionSize = regionSize;
  const DiscoveryComparison c = compareDiscoveryWithHostWalk(vt::gpu().scheduler, rays, model, {.maxCrossings = maxCrossings});
  INFO(c.mismatches << " mismatches, the first at " << c.firstMismatch);
  CHECK(c.mismatches == 0);
  // The list is the union of the rays' regions, each once, sorted.
  CHECK(c.listIsUnion);
}

}  // namespace

TEST_CASE("Region discovery finds exactly the regions the host's walk finds, in walk order", "[occupancy][gpu][discovery]") {
  const int32_t regionSize = GENERATE(32, 8, 5);  // powers of two and not
  INFO("region size " << regionSize);
  const double resolution = 0.1;
  SECTION("near the origin, negative coordinates included") {
    requireSameAsHost(awkwardRays(41, 6000, glm::dvec3(0.0), resolution, regionSize), resolution, regionSize);
  }
  SECTION("10 km from the origin") {
    requireSameAsHost(awkwardRays(42, 6000, glm::dvec3(10000.0, -10000.0, 35.0), resolution, regionSize), resolution,
                      regionSize);
  }
  SECTION("long rays in many segments") {
    requireSameAsHost(awkwardRays(43, 2000, glm::dvec3(-50.0, 20.0, 0.0), resolution, regionSize), resolution, regionSize, 8);
  }
}

TEST_CASE("Region discovery grows its set when a batch touches more regions than it holds", "[occupancy][gpu][discovery]") {
  // Rays scattered over a 400 m cube of 0.8 m regions: far more distinct regions than the
  // set's first 8,192 entries hold at a quarter full.
  const std::vector<Ray> rays = scatteredRays(42, 20000, 400.0, glm::dvec3(0.5, 0.3, -0.2));
  OccupancyModel model;
  model.regionSize = 8;
  const DiscoveryComparison c = compareDiscoveryWithHostWalk(vt::gpu().scheduler, rays, model);
  INFO(c.mismatches << " mismatches, the first at " << c.firstMismatch);
  CHECK(c.setGrowths > 0);
  CHECK(c.distinctRegions > 8192);
  CHECK(c.identical());
}

TEST_CASE("Region discovery collects a batch correctly after the next batch was submitted", "[occupancy][gpu][discovery]") {
  // Two batches in flight, as the integrator pipelines them: the first touches more regions
  // than its first readback holds, and the list buffer has been reused by the second when
  // the first is collected.
  vt::Rng rng(43);
  OccupancyModel model;
  model.regionSize = 8;
  auto scattered = [&](size_t count, double extent) {
    std::vector<PreparedRay> prepared;
    for (size_t i = 0; i < count; ++i) {
      Ray ray;
      auto u = [&] { return (double(rng.u32()) / 4294967296.0 - 0.5) * extent; };
      ray.origin = {u(), u(), u()};
      ray.sample = ray.origin + glm::dvec3(0.9, -0.4, 0.3);
      prepared.push_back(prepareRay(ray, model, {}));
    }
    return prepared;
  };
  const std::vector<PreparedRay> first = scattered(400, 200.0), second = scattered(500, 20.0);
  Scheduler& scheduler = vt::gpu().scheduler;
  RegionDiscovery discovery(scheduler, 3000);
  struct Upload {
    Buffer rays;
    uint64_t entries = 0, segments = 0;
    RegionKey origin;
  };
  auto upload = [&](const std::vector<PreparedRay>& prepared) {
    Upload u;
    std::vector<gpu::GpuRay> records;
    for (const PreparedRay& r : prepared) {
      const uint32_t count = segmentCount(r, 128);
      records.push_back(toGpuRay(r, count, uint32_t(3000 + u.entries), uint32_t(u.segments)));
      u.entries += regionCountOnRay(r, model.regionSize);
      u.segments += count;
    }
    u.rays = Buffer(scheduler.device(), "discovery test rays", records.size() * sizeof(gpu::GpuRay));
    scheduler.upload(u.rays.range(), records.data(), records.size() * sizeof(gpu::GpuRay));
    const int32_t n = model.regionSize;
    u.origin = {floorDiv(prepared[0].start.x, n), floorDiv(prepared[0].start.y, n), floorDiv(prepared[0].start.z, n)};
    return u;
  };
  auto expected = [&](const std::vector<PreparedRay>& prepared) {
    std::set<RegionKey> keys;
    for (const PreparedRay& r : prepared)
      for (const RegionKey& key : regionsOnRay(r, model.regionSize)) keys.insert(key);
    return std::vector<RegionKey>(keys.begin(), keys.end());
  };
  auto keysOf = [](const std::vector<DiscoveredRegion>& regions) {
    std::vector<RegionKey> keys;
    for (const DiscoveredRegion& region : regions) keys.push_back(region.key);
    return keys;
  };
  const Upload a = upload(first), b = upload(second);
  RegionDiscovery::Ticket ta = discovery.submit(a.rays.range(), uint32_t(first.size()), a.origin, model.regionSize, a.entries, a.segments);
  RegionDiscovery::Ticket tb = discovery.submit(b.rays.range(), uint32_t(second.size()), b.origin, model.regionSize, b.entries, b.segments);
  const std::vector<DiscoveredRegion> ra = discovery.collect(ta);
  CHECK(ra.size() > 256);  // more than the first readback's slack, so the list is read again
  CHECK(discovery.setGrowths() == 0);  // not because the set overflowed
  CHECK(keysOf(ra) == expected(first));
  // The first batch's region lists name its regions in walk order.
  const std::vector<uint32_t> slots = vt::readBack<uint32_t>(scheduler, discovery.raySlots(ta.copy).range(0, (3000 + a.entries) * 4));
  std::map<uint32_t, RegionKey> keyOfEntry;
  for (const DiscoveredRegion& region : ra) keyOfEntry[region.entry] = region.key;
  uint64_t at = 3000, mismatches = 0;
  for (const PreparedRay& r : first)
    for (const RegionKey& key : regionsOnRay(r, model.regionSize)) mismatches += !(keyOfEntry[slots[at++]] == key);
  CHECK(mismatches == 0);
  CHECK(keysOf(discovery.collect(tb)) == expected(second));
}

TEST_CASE("A region discovery mismatch names the host's region, the GPU's and the ray's start voxel", "[occupancy][gpu][discovery]") {
  OccupancyModel model;
  model.regionSize = 5;
  const std::vector<Ray> rays = awkwardRays(44, 200, glm::dvec3(0.0), model.resolution, model.regionSize);
  // The test-only switch moves ray 0's last region one step along x in the host's walk.
  const DiscoveryComparison c = compareDiscoveryWithHostWalk(vt::gpu().scheduler, rays, model, {.breakReference = true});
  REQUIRE(c.mismatches >= 1);
  INFO(c.firstMismatch);
  CHECK(c.firstMismatch.find("ray 0, region ") == 0);
  CHECK(c.firstMismatch.find("start voxel (") != std::string::npos);
  CHECK(c.firstMismatch.find("region size 5") != std::string::npos);
  CHECK(c.firstMismatch.find("the host walks (") != std::string::npos);
  CHECK(c.firstMismatch.find("the GPU listed (") != std::string::npos);
}

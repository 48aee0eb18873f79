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
#include "voxen/occupancy/region_discovery.hpp"

namespace {

using namespace voxen;

// Rays that stress the region walk: end points on region faces, edges and corners (exact
// multiples of the region's size in metres), axis-aligned and diagonal rays, negative
// coordinates, rays inside one voxel, and all of it shifted `offset` metres away.
std::vector<Ray> awkwardRays(vt::Rng& rng, size_t count, const glm::dvec3& offset, double regionMetres) {
  auto coordinate = [&](int range) {
    switch (rng.next() % 4) {
      case 0: return double(int64_t(rng.range(0, 2 * range)) - range) * regionMetres;  // on a region face
      case 1: return double(int64_t(rng.range(0, 20 * range)) - 10 * range) * regionMetres * 0.1;  // on a voxel face
      default: return (double(rng.u32()) / 4294967296.0 - 0.5) * 2.0 * range * regionMetres;
    }
  };
  std::vector<Ray> rays;
  for (size_t i = 0; i < count; ++i) {
    Ray ray;
    ray.origin = glm::dvec3(coordinate(3), coordinate(3), coordinate(3));
    switch (rng.next() % 5) {
      case 0: ray.sample = ray.origin + glm::dvec3(coordinate(4), 0.0, 0.0); break;  // axis-aligned
      case 1: {  // a diagonal through region edges and corners
        const double t = coordinate(4);
        ray.sample = ray.origin + glm::dvec3(t, t, (rng.next() & 1) ? t : -t);
        break;
      }
      case 2: ray.sample = ray.origin + glm::dvec3(1e-4, -1e-4, 1e-4); break;  // inside one voxel
      default: ray.sample = glm::dvec3(coordinate(5), coordinate(5), coordinate(5)); break;
    }
    ray.origin += offset;
    ray.sample += offset;
    rays.push_back(ray);
  }
  return rays;
}

struct Discovered {
  std::vector<DiscoveredRegion> regions;
  std::vector<uint32_t> raySlots;
  std::vector<uint32_t> segments;  // (ray, segment) pairs
  uint64_t growths = 0;
};

// Prepares the rays as GpuIntegrator does and runs discovery on them as one batch.
Discovered discover(RegionDiscovery& discovery, const std::vector<PreparedRay>& prepared, int32_t regionSize,
                    uint32_t maxCrossings, std::vector<uint32_t>& segmentCounts, std::vector<uint32_t>& slotBases) {
  Scheduler& scheduler = vt::gpu().scheduler;
  const uint32_t maxRays = uint32_t(prepared.size());
  std::vector<gpu::GpuRay> records;
  uint64_t entries = 0, segments = 0;
  for (const PreparedRay& r : prepared) {
    const uint32_t count = segmentCount(r, maxCrossings);
    segmentCounts.push_back(count);
    slotBases.push_back(uint32_t(maxRays + entries));
    records.push_back(toGpuRay(r, count, uint32_t(maxRays + entries), uint32_t(segments)));
    entries += regionCountOnRay(r, regionSize);
    segments += count;
  }
  Buffer rays(scheduler.device(), "discovery test rays", records.size() * sizeof(gpu::GpuRay));
  scheduler.upload(rays.range(), records.data(), records.size() * sizeof(gpu::GpuRay));
  const int32_t n = regionSize;
  const RegionKey origin{floorDiv(prepared[0].start.x, n), floorDiv(prepared[0].start.y, n), floorDiv(prepared[0].start.z, n)};
  Discovered d;
  d.regions = discovery.discover(rays.range(), maxRays, origin, regionSize, entries, segments);
  d.raySlots = vt::readBack<uint32_t>(scheduler, discovery.raySlots(discovery.lastCopy()).range(0, (maxRays + entries) * 4));
  d.segments = vt::readBack<uint32_t>(scheduler, discovery.segments(discovery.lastCopy()).range(0, segments * 8));
  d.growths = discovery.setGrowths();
  return d;
}

void requireSameAsHost(const std::vector<Ray>& rays, double resolution, int32_t regionSize, uint32_t maxCrossings = 128) {
  OccupancyModel model;
  model.resolution = resolution;
  model.regionSize = regionSize;
  std::vector<PreparedRay> prepared;
  for (const Ray& ray : rays) {
    REQUIRE(checkRay(ray, model, {}) == RayFault::None);
    prepared.push_back(prepareRay(ray, model, {}));
  }
  RegionDiscovery discovery(vt::gpu().scheduler, uint32_t(prepared.size()));
  std::vector<uint32_t> segmentCounts, slotBases;
  const Discovered d = discover(discovery, prepared, regionSize, maxCrossings, segmentCounts, slotBases);
  std::map<uint32_t, RegionKey> keyOfEntry;
  for (const DiscoveredRegion& region : d.regions) REQUIRE(keyOfEntry.emplace(region.entry, region.key).second);
  std::set<RegionKey> expected;
  size_t segment = 0;
  uint64_t mismatches = 0;
  for (size_t i = 0; i < prepared.size(); ++i) {
    const std::vector<RegionKey> walk = regionsOnRay(prepared[i], regionSize);
    expected.insert(walk.begin(), walk.end());
    for (size_t k = 0; k < walk.size(); ++k) {
      const auto found = keyOfEntry.find(d.raySlots[slotBases[i] + k]);
      if (found == keyOfEntry.end() || !(found->second == walk[k])) {
        ++mismatches;
        UNSCOPED_INFO("ray " << i << " region " << k << " of " << walk.size());
      }
    }
    const auto sample = keyOfEntry.find(d.raySlots[i]);
    mismatches += sample == keyOfEntry.end() || !(sample->second == walk.back());
    for (uint32_t s = 0; s < segmentCounts[i]; ++s, ++segment)
      mismatches += d.segments[2 * segment] != i || d.segments[2 * segment + 1] != s;
  }
  CHECK(mismatches == 0);
  // The list is the union of the rays' regions, each once, sorted.
  std::vector<RegionKey> listed;
  for (const DiscoveredRegion& region : d.regions) listed.push_back(region.key);
  CHECK(listed == std::vector<RegionKey>(expected.begin(), expected.end()));
}

}  // namespace

TEST_CASE("Region discovery finds exactly the regions the host's walk finds, in walk order", "[occupancy][gpu][discovery]") {
  vt::Rng rng(41);
  const int32_t regionSize = GENERATE(32, 8, 5);  // powers of two and not
  INFO("region size " << regionSize);
  const double resolution = 0.1;
  SECTION("near the origin, negative coordinates included") {
    requireSameAsHost(awkwardRays(rng, 6000, glm::dvec3(0.0), resolution * regionSize), resolution, regionSize);
  }
  SECTION("10 km from the origin") {
    requireSameAsHost(awkwardRays(rng, 6000, glm::dvec3(10000.0, -10000.0, 35.0), resolution * regionSize), resolution,
                      regionSize);
  }
  SECTION("long rays in many segments") {
    requireSameAsHost(awkwardRays(rng, 2000, glm::dvec3(-50.0, 20.0, 0.0), resolution * regionSize), resolution, regionSize, 8);
  }
}

TEST_CASE("Region discovery grows its set when a batch touches more regions than it holds", "[occupancy][gpu][discovery]") {
  // Rays scattered over a 400 m cube of 0.8 m regions: far more distinct regions than the
  // set's first 8,192 entries hold at a quarter full.
  vt::Rng rng(42);
  std::vector<Ray> rays;
  for (int i = 0; i < 20000; ++i) {
    Ray ray;
    auto u = [&] { return (double(rng.u32()) / 4294967296.0 - 0.5) * 400.0; };
    ray.origin = {u(), u(), u()};
    ray.sample = ray.origin + glm::dvec3(0.5, 0.3, -0.2);
    rays.push_back(ray);
  }
  OccupancyModel model;
  model.regionSize = 8;
  std::vector<PreparedRay> prepared;
  for (const Ray& ray : rays) prepared.push_back(prepareRay(ray, model, {}));
  RegionDiscovery discovery(vt::gpu().scheduler, uint32_t(prepared.size()));
  std::vector<uint32_t> segmentCounts, slotBases;
  const Discovered d = discover(discovery, prepared, model.regionSize, 128, segmentCounts, slotBases);
  CHECK(d.growths > 0);
  std::set<RegionKey> expected;
  for (const PreparedRay& r : prepared)
    for (const RegionKey& key : regionsOnRay(r, model.regionSize)) expected.insert(key);
  CHECK(d.regions.size() == expected.size());
  CHECK(d.regions.size() > 8192);
  requireSameAsHost(rays, model.resolution, model.regionSize);
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

// Incremental clearance driven by obstacle changes (issue 38, item 5): after a scan, only the
// regions within range of a region whose obstacle set changed are recomputed (a voxel crossed
// into or out of the obstacle class), not every region whose log-odds moved; the result is
// bit for bit a full recomputation's, with both integrators and both clearances.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <span>
#include <vector>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

namespace {

using namespace voxen;

enum class Backend { Cpu, Gpu };
const char* backendName(Backend b) { return b == Backend::Cpu ? "cpu" : "gpu"; }

// The regions whose obstacle set differs between two maps, by reading every voxel (a region
// one map lacks reads unobserved, as the clearance reads it): the oracle the map's stamps are
// checked against.
std::set<RegionKey> obstacleChanges(const OccupancyMap& before, const OccupancyMap& after, const ClearanceOptions& options) {
  std::set<RegionKey> keys;
  for (const OccupancyMap* m : {&before, &after})
    for (const auto& [key, region] : m->regions()) keys.insert(key);
  std::set<RegionKey> changed;
  const std::vector<float> unobserved(before.voxelsPerRegion(), kUnobserved);
  for (const RegionKey& key : keys) {
    const Region* a = before.findRegion(key);
    const Region* b = after.findRegion(key);
    const std::span<const float> x = a ? a->occupancy() : std::span<const float>(unobserved);
    const std::span<const float> y = b ? b->occupancy() : std::span<const float>(unobserved);
    for (size_t i = 0; i < x.size(); ++i)
      if (isObstacle(before, x[i], options) != isObstacle(after, y[i], options)) {
        changed.insert(key);
        break;
      }
  }
  return changed;
}

// What an update must recompute: the regions never computed (new ones), and those within the
// range of an obstacle change.
std::set<RegionKey> expectedRecomputed(const OccupancyMap& before, const OccupancyMap& after, const ClearanceOptions& options) {
  const std::set<RegionKey> changed = obstacleChanges(before, after, options);
  std::set<RegionKey> expected;
  for (const auto& [key, region] : after.regions()) {
    bool stale = !before.findRegion(key);
    for (const RegionKey& k : regionsWithinRange(key, after.model(), options)) stale = stale || changed.count(k);
    if (stale) expected.insert(key);
  }
  return expected;
}

void requireSameClearanceBits(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.regions().size() == b.regions().size());
  size_t differing = 0;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other);
    const std::span<const float> x = region.values<float>(clearanceLayer()), y = other->values<float>(clearanceLayer());
    REQUIRE(x.size() == y.size());
    differing += std::memcmp(x.data(), y.data(), x.size_bytes()) != 0;
  }
  CHECK(differing == 0);
}

// One backend's mapping and clearance on one map, scan by scan.
class Pipeline {
 public:
  Pipeline(Backend backend, OccupancyMap& map, const ClearanceOptions& options) : backend_(backend), map_(map), options_(options) {
    if (backend_ == Backend::Gpu)
      clearance_ = std::make_unique<GpuClearance>(vt::gpu().scheduler, map_, options_, GpuClearanceOptions{.cacheBytes = 64ull << 20});
    else
      cpuIntegrator_ = std::make_unique<CpuIntegrator>(map_);
  }
  void integrate(std::span<const Ray> rays) {
    if (backend_ == Backend::Gpu) {
      // A GPU integrator per scan, as the Mapper replaces its own after a clearance: its
      // cache's copies of the clearance layer would be stale. finish() copies every region
      // back into the host map, where the class crossings are found and the clearance reads.
      GpuIntegrator integrator(vt::gpu().scheduler, map_, IntegrationOptions{},
                               GpuIntegratorOptions{.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16});
      integrator.integrate(rays);
      integrator.finish();
    } else {
      cpuIntegrator_->integrate(rays);
    }
  }
  ClearanceStats update() { return clearance_ ? clearance_->update() : updateClearanceCpu(map_, options_); }
  void computeAll(OccupancyMap& map) const {
    if (backend_ == Backend::Gpu)
      GpuClearance(vt::gpu().scheduler, map, options_, {.cacheBytes = 64ull << 20}).compute();
    else
      computeClearanceCpu(map, options_);
  }

 private:
  Backend backend_;
  OccupancyMap& map_;
  ClearanceOptions options_;
  std::unique_ptr<CpuIntegrator> cpuIntegrator_;
  std::unique_ptr<GpuClearance> clearance_;
};

TEST_CASE("Clearance after each lidar scan recomputes exactly the regions within range of obstacle changes, equal to a full run",
          "[clearance][gpu][obstacle-changes]") {
  OccupancyModel model;
  model.resolution = 0.2;
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(4);
  const size_t perScan = rays.size() / 4;
  for (Backend backend : {Backend::Cpu, Backend::Gpu})
    for (bool unknownFree : {false, true}) {
      ClearanceOptions options;
      options.range = 1.0;
      options.unknownFree = unknownFree;
      OccupancyMap map(model);
      Pipeline pipeline(backend, map, options);
      for (size_t scan = 0; scan < 4; ++scan) {
        const OccupancyMap before = map;
        pipeline.integrate(std::span<const Ray>(rays).subspan(scan * perScan, perScan));
        const std::set<RegionKey> expected = expectedRecomputed(before, map, options);
        const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
        INFO(backendName(backend) << (unknownFree ? ", unknown free" : ", unknown an obstacle") << ", scan " << scan << ": "
                                  << dirty.size() << " out of date, " << expected.size() << " expected, of "
                                  << map.regions().size() << " regions");
        CHECK(std::set<RegionKey>(dirty.begin(), dirty.end()) == expected);
        CHECK(pipeline.update().regions == expected.size());
        OccupancyMap full = map;
        pipeline.computeAll(full);
        requireSameClearanceBits(map, full);
      }
    }
}

TEST_CASE("Clearance: a scan that changes no obstacle recomputes nothing, one new obstacle voxel only the regions within range of it",
          "[clearance][gpu][obstacle-changes]") {
  for (Backend backend : {Backend::Cpu, Backend::Gpu}) {
    // Free space (log-odds at the lower clamp) over 5 x 3 x 3 regions of 3.2 m, a wall of
    // occupied voxels (upper clamp) at x = 2 m.
    OccupancyMap map = vt::clearance::freeMap(0.1, {-2, -1, -1}, {2, 1, 1});
    for (int y = -20; y < 20; ++y)
      for (int z = -20; z < 20; ++z) vt::clearance::setOccupied(map, {20, y, z});
    ClearanceOptions options;
    options.range = 1.0;
    Pipeline pipeline(backend, map, options);
    CHECK(pipeline.update().regions == map.regions().size());
    INFO(backendName(backend));
    // Rays through free voxels onto the wall: misses keep free voxels at the clamp, hits keep
    // the wall's at the other; log-odds are written, no class changes.
    std::vector<Ray> ontoWall;
    for (int i = 0; i < 64; ++i) ontoWall.push_back({.origin = {0.05, -1.0 + 0.03 * i, 0.05}, .sample = {2.05, -1.0 + 0.03 * i, 0.15}});
    pipeline.integrate(ontoWall);
    CHECK(clearanceDirtyRegions(map, options).empty());
    CHECK(pipeline.update().regions == 0);
    // One ray ending in free space at (-3.95, 0.05, 0.05) m: its hit makes that voxel occupied
    // (lower clamp + hit >= threshold), in region (-2, 0, 0).
    const OccupancyMap before = map;
    const VoxelCoord target = map.voxelAt({-3.95, 0.05, 0.05});
    REQUIRE(map.classify(target) == VoxelClass::Free);
    pipeline.integrate(std::vector<Ray>{{.origin = {-2.05, 0.05, 0.05}, .sample = {-3.95, 0.05, 0.05}}});
    REQUIRE(map.classify(target) == VoxelClass::Occupied);
    REQUIRE(obstacleChanges(before, map, options) == std::set<RegionKey>{map.regionOf(target)});
    // The regions within range of region (-2, 0, 0) that the map has: x -2..-1, y and z -1..1.
    std::set<RegionKey> near;
    for (const RegionKey& k : regionsWithinRange(map.regionOf(target), map.model(), options))
      if (map.findRegion(k)) near.insert(k);
    CHECK(near.size() == 18);
    const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
    CHECK(std::set<RegionKey>(dirty.begin(), dirty.end()) == near);
    CHECK(pipeline.update().regions == near.size());
    OccupancyMap full = map;
    pipeline.computeAll(full);
    requireSameClearanceBits(map, full);
  }
}

TEST_CASE("Clearance: a dropped region makes the regions within range of it out of date", "[clearance][obstacle-changes]") {
  OccupancyMap map = vt::clearance::freeMap(0.1, {-2, -1, -1}, {2, 1, 1});
  ClearanceOptions options;
  options.range = 1.0;
  updateClearanceCpu(map, options);
  REQUIRE(clearanceDirtyRegions(map, options).empty());
  map.dropRegion({2, 0, 0});  // its voxels read unobserved now: obstacles for the regions near it
  std::set<RegionKey> near;
  for (const RegionKey& k : regionsWithinRange({2, 0, 0}, map.model(), options))
    if (map.findRegion(k)) near.insert(k);
  CHECK(near.size() == 17);  // x 1 and 2, y and z -1..1, less the dropped one
  const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
  CHECK(std::set<RegionKey>(dirty.begin(), dirty.end()) == near);
  CHECK(updateClearanceCpu(map, options).regions == near.size());
  OccupancyMap full = map;
  computeClearanceCpu(full, options);
  requireSameClearanceBits(map, full);
  // Made again (unobserved everywhere, as when it was missing): itself due, nothing else.
  map.region({2, 0, 0});
  CHECK(clearanceDirtyRegions(map, options) == std::vector<RegionKey>{{2, 0, 0}});
}

}  // namespace

// Clearance at the ends of the int32 voxel range (region keys the map and its files accept):
// the CPU reference against the brute force, the GPU's exact technique bit for bit against
// the CPU, and no obstacle seen across the wrap from one end of the range to the other.
#include <catch2/catch.hpp>

#include <cstring>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

// Observed free regions `lo` to `hi` (region keys) of edge n at 0.25 m, with obstacles
// scattered in them (added to `map` when given).
OccupancyMap edgeMap(int n, RegionKey lo, RegionKey hi, uint64_t seed, OccupancyMap* into = nullptr) {
  OccupancyModel model;
  model.resolution = 0.25;
  model.regionSize = n;
  OccupancyMap fresh(model);
  OccupancyMap& map = into ? *into : fresh;
  uint64_t state = seed;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y)
      for (int x = lo.x; x <= hi.x; ++x) {
        Region& r = map.region({x, y, z});
        for (float& v : r.occupancy()) v = model.clampMin;
        for (int i = 0; i < 6; ++i) r.occupancy()[next() % r.occupancy().size()] = model.clampMax;
        r.occupancy()[next() % r.occupancy().size()] = kUnobserved;
      }
  return into ? OccupancyMap(model) : std::move(fresh);
}

void checkAgainstBruteForce(OccupancyMap& map, const ClearanceOptions& options) {
  OccupancyMap gpu = map;
  computeClearanceCpu(map, options);
  for (const auto& [key, region] : map.regions()) {
    const ClearanceError e = compareWithBruteForce(map, key, options);
    INFO("region (" << key.x << ", " << key.y << ", " << key.z << "), unknown free " << options.unknownFree << ": max error "
                    << e.maxError << ", " << e.rangeMismatches << " disagree on the range, of " << e.voxels);
    CHECK(e.maxError < 1e-5);
    CHECK(e.rangeMismatches == 0);
  }
  ClearanceOptions exact = options;
  exact.technique = ClearanceTechnique::Exact;
  GpuClearance(vt::gpu().scheduler, gpu, exact).compute();
  const ClearanceComparison c = compareClearance(map, gpu);
  INFO("GPU exact: " << c.voxels - c.sameBits << " of " << c.voxels << " voxels differ from the CPU reference");
  CHECK(c.sameBits == c.voxels);
}

TEST_CASE("Clearance at the ends of the int32 voxel range matches the brute force, CPU and GPU", "[clearance][gpu]") {
  const int n = 8;
  const int32_t top = INT32_MAX / n, bottom = INT32_MIN / n;  // the last and first keys whose voxels fit int32
  REQUIRE(regionKeyInRange({top, top, top}, n));
  REQUIRE(regionKeyInRange({bottom, bottom, bottom}, n));
  for (bool unknownFree : {false, true}) {
    ClearanceOptions options;
    options.range = 1.0;  // 4 voxels: blocks reach past either end of the range
    options.unknownFree = unknownFree;
    OccupancyMap high = edgeMap(n, {top - 1, top - 1, top - 1}, {top, top, top}, 5);
    checkAgainstBruteForce(high, options);
    OccupancyMap low = edgeMap(n, {bottom, bottom, bottom}, {bottom + 1, bottom + 1, bottom + 1}, 9);
    checkAgainstBruteForce(low, options);
  }
}

TEST_CASE("Clearance at the ends of the voxel range with a region size that does not divide it", "[clearance][gpu]") {
  // 24-voxel regions: the last key the map accepts ends 8 voxels before INT32_MAX and the first
  // starts 8 after INT32_MIN; those voxels belong to regions no map can hold (unobserved),
  // whichever region of the other end their keys would wrap to.
  const int n = 24;
  const int32_t top = int32_t((int64_t(INT32_MAX) + 1) / n - 1), bottom = int32_t(INT32_MIN / n);
  REQUIRE(regionKeyInRange({top, 0, 0}, n));
  REQUIRE_FALSE(regionKeyInRange({top + 1, 0, 0}, n));
  REQUIRE(regionKeyInRange({bottom, 0, 0}, n));
  REQUIRE_FALSE(regionKeyInRange({bottom - 1, 0, 0}, n));
  for (bool unknownFree : {false, true}) {
    ClearanceOptions options;
    options.range = 2.5;  // 10 voxels: past the 8 unusable ones
    options.unknownFree = unknownFree;
    OccupancyMap map = edgeMap(n, {top, 0, 0}, {top, 0, 0}, 3);
    edgeMap(n, {bottom, 0, 0}, {bottom, 0, 0}, 4, &map);
    checkAgainstBruteForce(map, options);
  }
}

TEST_CASE("Clearance does not see obstacles across the wrap from one end of the voxel range to the other", "[clearance][gpu]") {
  const int n = 8;
  const int32_t top = INT32_MAX / n, bottom = INT32_MIN / n;
  OccupancyModel model;
  model.resolution = 0.25;
  model.regionSize = n;
  OccupancyMap map(model);
  for (int32_t key : {top, bottom}) {
    Region& r = map.region({key, 0, 0});
    for (float& v : r.occupancy()) v = model.clampMin;
  }
  // An obstacle on the first voxel of the range: one voxel past the last one, were it to wrap.
  setOccupied(map, {INT32_MIN, 3, 3});
  ClearanceOptions options;
  options.range = 1.0;
  options.unknownFree = true;
  OccupancyMap gpu = map;
  computeClearanceCpu(map, options);
  const auto last = map.findRegion({top, 0, 0})->values<float>(clearanceLayer());
  CHECK(last[map.localIndex({INT32_MAX, 3, 3})] == kNoObstacleInRange);
  CHECK(map.findRegion({bottom, 0, 0})->values<float>(clearanceLayer())[map.localIndex({INT32_MIN + 2, 3, 3})] == 0.5f);
  for (ClearanceTechnique technique : {ClearanceTechnique::Exact, ClearanceTechnique::Roi, ClearanceTechnique::Neighbour,
                                       ClearanceTechnique::OpenList}) {
    OccupancyMap computed = gpu;
    options.technique = technique;
    GpuClearance(vt::gpu().scheduler, computed, options).compute();
    INFO(clearanceTechniqueName(technique));
    CHECK(computed.findRegion({top, 0, 0})->values<float>(clearanceLayer())[map.localIndex({INT32_MAX, 3, 3})] ==
          kNoObstacleInRange);
    CHECK(compareClearance(map, computed).noneMismatches == 0);
  }
}

}  // namespace

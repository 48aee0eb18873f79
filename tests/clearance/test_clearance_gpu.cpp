// The GPU's exact clearance against the CPU reference (the same transform: equal to float
// rounding) and the brute-force search, on hand-built maps and a map built from a generated
// lidar run; batches smaller than the map; every region or a chosen few.
#include <catch2/catch.hpp>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

std::vector<RegionKey> keysOf(const OccupancyMap& map) {
  std::vector<RegionKey> keys;
  for (const auto& [key, r] : map.regions()) keys.push_back(key);
  return keys;
}

TEST_CASE("Clearance GPU (exact) equals the CPU reference and the brute force on hand-built maps", "[clearance][gpu]") {
  OccupancyMap cpu = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  for (int x = -32; x < 64; ++x)
    for (int y = -32; y < 64; ++y) setOccupied(cpu, {x, y, -3});
  for (int z = -32; z < 64; ++z) setOccupied(cpu, {35, 40, z});
  setOccupied(cpu, {10, 12, 14});
  cpu.findRegion({1, 1, 1})->occupancy()[5] = kUnobserved;
  for (bool unknownFree : {false, true}) {
    OccupancyMap gpu = cpu;
    ClearanceOptions options;
    options.range = 2.0;
    options.unknownFree = unknownFree;
    options.technique = ClearanceTechnique::Exact;
    computeClearanceCpu(cpu, options);
    GpuClearance clearance(vt::gpu().scheduler, gpu, options);
    const ClearanceStats stats = clearance.compute();
    CHECK(stats.regions == 27);
    const ClearanceComparison d = compareClearance(cpu, gpu);
    INFO("unknown free " << unknownFree << ": max difference " << d.maxError << ", none mismatches " << d.noneMismatches);
    CHECK(d.maxError < 1e-5);
    CHECK(d.noneMismatches == 0);
    const ClearanceError e = compareWithBruteForce(gpu, {0, 0, 0}, options);
    CHECK(e.maxError < 1e-5);
    CHECK(e.rangeMismatches == 0);
  }
}

TEST_CASE("Clearance GPU (exact) on a generated lidar map, in batches, with axis scaling", "[clearance][gpu]") {
  OccupancyModel model;
  model.resolution = 0.25;
  vt::occupancy::Run run = vt::occupancy::runCpu(vt::occupancy::smallLidarRun(2), {}, model, LayerSet{});
  OccupancyMap cpu = std::move(run.map);
  REQUIRE(cpu.regions().size() >= 8);
  ClearanceOptions options;
  options.range = 1.5;
  options.axisScale = {1.0, 1.0, 0.5};
  options.technique = ClearanceTechnique::Exact;
  OccupancyMap gpu = cpu;
  computeClearanceCpu(cpu, options);
  // A field of 3 blocks per batch: several batches, regions evicted and reloaded between them.
  const glm::ivec3 pad = options.padding(model);
  const uint64_t block = 4ull * 32 * (32 + 2 * pad.y) * (32 + 2 * pad.z);  // the field keeps the region's x only
  GpuClearance clearance(vt::gpu().scheduler, gpu, options, {.cacheBytes = 64ull << 20, .fieldBytes = 3 * block});
  CHECK(clearance.compute().regions == cpu.regions().size());
  const ClearanceComparison d = compareClearance(cpu, gpu);
  INFO("max difference " << d.maxError << " over " << d.voxels << " voxels");
  CHECK(d.maxError < 1e-5);
  CHECK(d.noneMismatches == 0);
  const RegionKey some = keysOf(cpu).front();
  const ClearanceError e = compareWithBruteForce(gpu, some, options);
  CHECK(e.maxError < 1e-5);
  CHECK(e.rangeMismatches == 0);
}

// The propagation techniques against the CPU reference's exact distances on a generated
// lidar map at 0.25 m: stated bounds (measured: every voxel within one voxel of exact, the
// largest error 0.07 m at a 2 m range, the same "none within range" everywhere).
TEST_CASE("Clearance GPU: ROI, neighbour and open-list propagation stay within a voxel of exact", "[clearance][gpu]") {
  OccupancyModel model;
  model.resolution = 0.25;
  vt::occupancy::Run run = vt::occupancy::runCpu(vt::occupancy::smallLidarRun(2), {}, model, LayerSet{});
  OccupancyMap exact = std::move(run.map);
  const OccupancyMap base = exact;
  for (int variant = 0; variant < 3; ++variant) {
    const bool unknownFree = variant == 1;
    ClearanceOptions options;
    options.range = 2.0;
    options.unknownFree = unknownFree;
    if (variant == 2) options.axisScale = {1.0, 1.0, 0.5};  // heights count half
    exact = base;
    computeClearanceCpu(exact, options);
    for (ClearanceTechnique technique : {ClearanceTechnique::Roi, ClearanceTechnique::Neighbour, ClearanceTechnique::OpenList}) {
      OccupancyMap map = base;
      options.technique = technique;
      GpuClearance clearance(vt::gpu().scheduler, map, options, {.cacheBytes = 64ull << 20, .fieldBytes = 64ull << 20});
      clearance.compute();
      const ClearanceComparison c = compareClearance(exact, map);
      INFO(clearanceTechniqueName(technique) << ", variant " << variant << ": max error " << c.maxError << ", mean "
                                             << c.meanError() << ", within one voxel " << c.withinOneVoxel << " of "
                                             << c.inRange << ", none mismatches " << c.noneMismatches);
      REQUIRE(c.inRange > 50000);
      CHECK(propagationShortfall(c, model.resolution) == "");
    }
  }
}

TEST_CASE("Clearance GPU: only the requested regions are computed", "[clearance][gpu]") {
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {1, 0, 0});
  setOccupied(map, {40, 5, 5});
  ClearanceOptions options;
  options.range = 1.0;
  GpuClearance clearance(vt::gpu().scheduler, map, options);
  const std::vector<RegionKey> one{{1, 0, 0}};
  CHECK(clearance.compute(one).regions == 1);
  const auto untouched = map.findRegion({0, 0, 0})->values<float>(clearanceLayer());
  CHECK(std::all_of(untouched.begin(), untouched.end(), [](float v) { return v == kNoObstacleInRange; }));
  CHECK(map.findRegion({1, 0, 0})->values<float>(clearanceLayer())[map.localIndex({40, 5, 5})] == 0.0f);
}

}  // namespace

// The GPU clearance's memory: the region cache grows to one target's neighbourhood when the
// one given is too small, what cannot fit the memory limit is refused naming the limit and
// the range, the longest ranges (240 voxels of padding) run bit for bit with the CPU
// reference, and progress is reported as batches go.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "support/clearance_reference.hpp"
#include "support/gpu_fixture.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/map/region_cache.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

OccupancyMap scatteredMap() {
  OccupancyMap map = freeMap(0.25, {-1, -1, -1}, {1, 1, 1});
  uint64_t state = 11;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int i = 0; i < 300; ++i) setOccupied(map, {int(next() % 96) - 32, int(next() % 96) - 32, int(next() % 96) - 32});
  return map;
}

TEST_CASE("Clearance GPU: a cache too small for a region's neighbourhood grows to hold it", "[clearance][gpu]") {
  OccupancyMap cpu = scatteredMap();
  ClearanceOptions options;
  options.range = 1.0;  // 4 voxels: every region needs its 26 neighbours
  options.technique = ClearanceTechnique::Exact;
  OccupancyMap gpu = cpu;
  computeClearanceCpu(cpu, options);
  const uint64_t perRegion = RegionCache::bytesPerRegion(gpu) + 4 * gpu.voxelsPerRegion();
  GpuClearance clearance(vt::gpu().scheduler, gpu, options, {.cacheBytes = 4 * perRegion});
  CHECK(clearance.cacheRegions() == 4);
  const ClearanceStats stats = clearance.compute();
  CHECK(stats.regions == 27);
  CHECK(stats.cacheRegions >= 27);
  const ClearanceComparison c = compareClearance(cpu, gpu);
  CHECK(c.sameBits == c.voxels);
}

TEST_CASE("Clearance GPU: what the memory limit cannot hold is refused, naming the limit and the range", "[clearance][gpu]") {
  OccupancyMap map = scatteredMap();
  ClearanceOptions options;
  options.range = 1.0;
  const uint64_t perRegion = RegionCache::bytesPerRegion(map) + 4 * map.voxelsPerRegion();
  // Room for blocks and ten regions: fewer than the 27 a target needs.
  GpuClearance small(vt::gpu().scheduler, map, options,
                     {.cacheBytes = 4 * perRegion, .memoryLimitBytes = 10 * perRegion + (1u << 20), .memoryHint = "raise --memory-budget"});
  CHECK_THROWS_WITH(small.compute(), Catch::Contains("27 regions") && Catch::Contains("range of 1 m") &&
                                         Catch::Contains("raise --memory-budget"));
  // The neighbour technique keeps 16 bytes per voxel of a 512^3 block at 240 voxels of
  // padding: 2 GiB, refused up front with the exact technique's figure.
  OccupancyModel model;
  model.resolution = 0.1;
  OccupancyMap far(model);
  far.region({0, 0, 0});
  ClearanceOptions wide;
  wide.range = 24.0;
  wide.technique = ClearanceTechnique::Neighbour;
  CHECK_THROWS_WITH(GpuClearance(vt::gpu().scheduler, far, wide, {.memoryLimitBytes = 1ull << 30, .memoryHint = "raise it"}),
                    Catch::Contains("neighbour technique at a range of 24 m") && Catch::Contains("512 x 512 x 512") &&
                        Catch::Contains("use the exact technique") && Catch::Contains("raise it"));
}

TEST_CASE("Clearance GPU (exact) at 240 voxels of padding equals the CPU reference bit for bit", "[clearance][gpu]") {
  OccupancyModel model;
  model.resolution = 1.0;
  for (int axis = 0; axis < 3; ++axis) {
    ClearanceOptions options;
    options.range = 24.0;
    options.unknownFree = true;
    options.technique = ClearanceTechnique::Exact;
    options.axisScale[axis] = 0.1;  // 240 voxels along this axis
    std::vector<VoxelCoord> obstacles;
    OccupancyMap cpu = farObstacleMap(model, axis, obstacles);
    OccupancyMap gpu = cpu;
    const std::vector<RegionKey> centre{{0, 0, 0}};
    computeClearanceCpu(cpu, options, centre);
    GpuClearance(vt::gpu().scheduler, gpu, options).compute(centre);
    const auto want = cpu.findRegion({0, 0, 0})->values<float>(clearanceLayer());
    const auto have = gpu.findRegion({0, 0, 0})->values<float>(clearanceLayer());
    INFO("axis " << axis);
    CHECK(std::equal(want.begin(), want.end(), have.begin(), have.end(),
                     [](float a, float b) { return std::memcmp(&a, &b, 4) == 0; }));
    CHECK(std::count_if(have.begin(), have.end(), [](float v) { return v > 2.0f; }) > 1000);  // far obstacles seen
  }
}

TEST_CASE("Clearance: progress is reported per batch up to every region, CPU and GPU", "[clearance][gpu]") {
  OccupancyMap map = scatteredMap();
  ClearanceOptions options;
  options.range = 1.0;
  std::vector<uint64_t> seen;
  auto record = [&](uint64_t done, uint64_t total) {
    CHECK(total == 27);
    seen.push_back(done);
  };
  computeClearanceCpu(map, options, {}, record);
  CHECK(seen.size() == 27);
  CHECK(seen.back() == 27);
  seen.clear();
  const glm::ivec3 pad = options.padding(map.model());
  GpuClearance gpu(vt::gpu().scheduler, map, options,
                   {.fieldBytes = 4ull * 32 * (32 + 2 * pad.y) * (32 + 2 * pad.z) * 4, .progress = record});
  gpu.compute();
  CHECK(seen.size() >= 7);  // batches of at most four blocks
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() == 27);
}

}  // namespace

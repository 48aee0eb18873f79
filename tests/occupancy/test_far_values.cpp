// Far or huge values must end fast with a clear error or be skipped and counted, never
// exhaust memory: rays to points at 1e30 m, NaN or 3e9 m; rays longer than the GPU cache or
// the map's region budget; resolutions out of range; a PLY whose header types do not match
// its body; an OctoMap file of a few bytes whose leaves cover a billion voxels; map loads and
// render grids past a memory budget. Every bad input is generated here, in a few bytes.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "support/test_helpers.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/export/octomap_io.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/painter/map_grid.hpp"

namespace {

using namespace voxen;
using Catch::Matchers::Contains;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A small fan of ordinary rays with the bad ones at fixed positions among them.
std::vector<Ray> raysWithFarPoints() {
  std::vector<Ray> rays;
  for (int i = 0; i < 40; ++i) {
    Ray r;
    r.origin = {0.05, 0.05, 1.0};
    r.sample = {2.0 + 0.1 * (i % 7), -1.0 + 0.05 * i, 0.3 * (i % 5)};
    r.time = 0.01 * i;
    rays.push_back(r);
  }
  rays[3].sample = {1e30, 0.0, 0.0};      // index 3: far beyond int32 voxels
  rays[11].sample = {kNaN, 1.0, 1.0};     // index 11: NaN
  rays[17].sample = {0.0, 3e9, 0.0};      // index 17: 3e9 m
  rays[29].origin = {-kInf, 0.0, 0.0};    // index 29: an infinite origin
  return rays;
}

struct Integrated {
  OccupancyMap map;
  IntegrationStats stats;
};

Integrated onGpu(const std::vector<Ray>& rays, IntegrationOptions options = {},
                 GpuIntegratorOptions gpuOptions = {.cacheBytes = 16ull << 20}) {
  Integrated run{OccupancyMap(), {}};
  GpuIntegrator gpu(vt::gpu().scheduler, run.map, options, gpuOptions);
  gpu.integrate(rays);
  gpu.finish();
  run.stats = gpu.stats();
  return run;
}

Integrated onCpu(const std::vector<Ray>& rays, IntegrationOptions options = {}) {
  Integrated run{OccupancyMap(), {}};
  CpuIntegrator cpu(run.map, options);
  cpu.integrate(rays);
  run.stats = cpu.stats();
  return run;
}

// Every voxel's value, bit for bit, in both maps.
bool sameOccupancy(const OccupancyMap& a, const OccupancyMap& b) {
  if (a.regions().size() != b.regions().size()) return false;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    if (!other) return false;
    if (std::memcmp(region.occupancy().data(), other->occupancy().data(), region.occupancy().size_bytes()) != 0)
      return false;
  }
  return true;
}

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("Rays to non-finite or far points are skipped and counted identically on the GPU and the CPU", "[far][gpu]") {
  const std::vector<Ray> rays = raysWithFarPoints();
  const Integrated gpu = onGpu(rays), cpu = onCpu(rays);
  for (const Integrated* run : {&gpu, &cpu}) {
    CHECK(run->stats.rejectedRays == 4);
    CHECK(run->stats.rays == rays.size() - 4);
    REQUIRE(run->stats.firstRejected.has_value());
    CHECK(run->stats.firstRejected->index == 3);
    CHECK(run->stats.firstRejected->ray.sample.x == 1e30);
    CHECK_FALSE(run->stats.firstRejected->nonFinite);
    CHECK(run->map.regions().size() < 10);  // the good rays' few regions, nothing towards the far points
  }
  CHECK(sameOccupancy(gpu.map, cpu.map));

  // The index counts every ray given, across calls: a NaN arriving in a second call is
  // reported with its place in the whole stream.
  OccupancyMap map;
  CpuIntegrator integrator(map);
  integrator.integrate(std::vector<Ray>(rays.begin(), rays.begin() + 3));
  integrator.integrate(std::vector<Ray>(rays.begin() + 11, rays.begin() + 12));
  REQUIRE(integrator.stats().firstRejected.has_value());
  CHECK(integrator.stats().firstRejected->index == 3);
  CHECK(integrator.stats().firstRejected->nonFinite);
}

TEST_CASE("A far sample clipped by the maximum range is integrated, not rejected", "[far][gpu]") {
  std::vector<Ray> rays(1);
  rays[0].origin = {0.05, 0.05, 0.05};
  rays[0].sample = {3e9, 0.0, 0.0};
  IntegrationOptions options;
  options.maxRange = 5.0;
  const Integrated gpu = onGpu(rays, options), cpu = onCpu(rays, options);
  for (const Integrated* run : {&gpu, &cpu}) {
    CHECK(run->stats.rejectedRays == 0);
    CHECK(run->stats.clippedRays == 1);
    CHECK(run->stats.voxelUpdates > 40);
  }
  CHECK(sameOccupancy(gpu.map, cpu.map));
  // 1e30 m is still refused when the origin itself is that far.
  rays[0].origin = {1e30, 0.0, 0.0};
  CHECK(onCpu(rays, options).stats.rejectedRays == 1);
  CHECK(onGpu(rays, options).stats.rejectedRays == 1);
}

TEST_CASE("The voxel coordinate limit sits inside int32 with margin at every accepted resolution", "[far]") {
  OccupancyModel model;
  model.resolution = kMinResolution;
  Ray ray;
  ray.sample = {(kMaxVoxelCoordinate - 1) * model.resolution, 0.0, 0.0};
  CHECK(checkRay(ray, model, {}) == RayFault::None);
  ray.sample.x = kMaxVoxelCoordinate * model.resolution * 1.0001;
  CHECK(checkRay(ray, model, {}) == RayFault::TooFar);
  ray.sample.x = -ray.sample.x;
  CHECK(checkRay(ray, model, {}) == RayFault::TooFar);
  ray.sample = {0.0, kNaN, 0.0};
  CHECK(checkRay(ray, model, {}) == RayFault::NonFinite);
  // A region's base voxel (key times the region size, at most 128 below the voxel), the
  // face counts between opposite extremes and the crossing totals stay inside 32 bits.
  const double int32Max = double(std::numeric_limits<int32_t>::max());
  CHECK(kMaxVoxelCoordinate + 128 < int32Max);
  CHECK(2 * kMaxVoxelCoordinate < int32Max);
  CHECK(3 * 2 * kMaxVoxelCoordinate < double(std::numeric_limits<uint32_t>::max()));
}

TEST_CASE("A ray's region count is computed from its end points and equals its region walk", "[far]") {
  OccupancyModel model;
  for (int32_t regionSize : {4, 7, 32}) {
    model.regionSize = regionSize;
    for (int i = 0; i < 200; ++i) {
      Ray ray;
      ray.origin = {std::sin(i * 1.3) * 7.0, std::cos(i * 0.7) * 5.0, std::sin(i * 0.3) * 3.0};
      ray.sample = {std::cos(i * 2.1) * 9.0, std::sin(i * 1.7) * 6.0, std::cos(i * 0.9) * 4.0};
      const PreparedRay r = prepareRay(ray, model, {});
      CHECK(regionCountOnRay(r, regionSize) == regionsOnRay(r, regionSize).size());
    }
  }
}

TEST_CASE("A ray crossing more regions than the GPU walks in one invocation is refused before anything is walked", "[far][gpu]") {
  std::vector<Ray> rays(5);
  for (Ray& r : rays) r.sample = {1.0, 1.0, 1.0};
  rays[2].origin = {0.05, 0.05, 0.05};
  rays[2].sample = {2e7, 0.0, 0.0};  // 2e8 voxels, 6 million regions: far past region discovery's bound
  OccupancyMap map;
  GpuIntegrator gpu(vt::gpu().scheduler, map, {}, {.cacheBytes = 2ull << 20});
  const std::string message = vt::errorOf([&] { gpu.integrate(rays); });
  CHECK_THAT(message, Contains("ray 2") && Contains("2e+07") && Contains("regions but the GPU walks at most 4096") &&
                          Contains("set the maximum range (now none)"));

  // With a maximum range already set, the hint says to lower it.
  OccupancyMap map2;
  GpuIntegrator ranged(vt::gpu().scheduler, map2, {.maxRange = 1e6}, {.cacheBytes = 2ull << 20});
  CHECK_THAT(vt::errorOf([&] { ranged.integrate(rays); }), Contains("lower the maximum range (now 1e+06 m)"));
  // The error names the setting's field, for a program to name its own option for it.
  try {
    OccupancyMap map3;
    GpuIntegrator again(vt::gpu().scheduler, map3, {}, {.cacheBytes = 2ull << 20});
    again.integrate(rays);
    FAIL("the far ray was integrated");
  } catch (const SettingError& e) {
    CHECK(e.field() == "IntegrationOptions::maxRange");
    CHECK_THAT(e.naming("--max-range"), Contains("set --max-range (now none)"));
  }
}

TEST_CASE("The CPU integrator refuses a ray crossing more regions than the map may hold, before walking it", "[far]") {
  std::vector<Ray> rays(2);
  rays[1].sample = {2e7, 0.0, 0.0};
  OccupancyMap map;
  map.setRegionLimit(64, "raise the budget");
  CpuIntegrator cpu(map);
  CHECK_THAT(vt::errorOf([&] { cpu.integrate(rays); }), Contains("ray 1") && Contains("memory budget"));
  CHECK(map.regions().empty());
}

TEST_CASE("A map refuses to grow past its region limit, naming the region and the limit", "[far]") {
  OccupancyMap map;
  map.setRegionLimit(2, "raise --memory-budget");
  map.region({0, 0, 0});
  map.region({1, 0, 0});
  CHECK_NOTHROW(map.region({0, 0, 0}));
  CHECK_THAT(vt::errorOf([&] { map.region({5, 6, 7}); }),
             Contains("2 regions") && Contains("(5, 6, 7)") && Contains("raise --memory-budget"));
  CHECK(map.bytesPerRegion() == 32 * 32 * 32 * 4);
}

TEST_CASE("Resolutions outside 0.0001 to 1000 m are refused, naming the field", "[far]") {
  for (double resolution : {1e-9, 5e-5, 2000.0, 0.0, -1.0, kNaN, kInf}) {
    OccupancyModel model;
    model.resolution = resolution;
    CHECK_THAT(vt::errorOf([&] { model.validate(); }), Contains("resolution") && Contains("0.0001"));
  }
  for (double resolution : {1e-4, 0.1, 1000.0}) {
    OccupancyModel model;
    model.resolution = resolution;
    CHECK_NOTHROW(model.validate());
  }
}

TEST_CASE("A binary PLY whose header says float over a body of doubles is refused before reading, naming the sizes", "[far][ply]") {
  vt::TempDir dir("far");
  const std::string head =
      "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
      "end_header\n";
  vt::Bytes body;
  body.data = head;
  for (int i = 0; i < 12; ++i) body.put<double>(1.0 + i);
  dir.write("doubles.ply", body.data);
  const std::string implied = std::to_string(head.size() + 4 * 12), actual = std::to_string(body.data.size());
  CHECK_THAT(vt::errorOf([&] { PlyReader r(dir / "doubles.ply"); }),
             Contains("doubles.ply") && Contains(implied + " bytes") && Contains(actual + " bytes") && Contains("float"));
  CHECK_THAT(vt::errorOf([&] { RayReader r(dir / "doubles.ply"); }), Contains("doubles.ply") && Contains(implied));

  // The other way round (double declared over floats) the body is short: the reads' own
  // truncation errors name the row and byte offset (test_ray_source.cpp), not this check.

  // The same header over floats reads.
  vt::Bytes good;
  good.data = head;
  for (int i = 0; i < 12; ++i) good.put<float>(1.0f + float(i));
  dir.write("floats.ply", good.data);
  PlyReader reader(dir / "floats.ply");
  std::vector<double> values;
  CHECK(reader.read(values, 100) == 4);
}

namespace {

// An OctoMap binary tree whose only leaf is a free cube at `leafDepth` (edge 2^(16 - depth)
// voxels): a chain of inner nodes down to it. 12 bytes of data for depth 6, a billion voxels.
std::string octomapBomb(int leafDepth) {
  std::string tree;
  for (int depth = 0; depth + 1 < leafDepth; ++depth) tree += std::string(1, char(0x03)) + std::string(1, char(0x00));
  tree += std::string(1, char(0x01)) + std::string(1, char(0x00));  // child 0: a free leaf
  const uint64_t nodes = uint64_t(leafDepth) + 1;
  return "# Octomap OcTree binary file\nid OcTree\nsize " + std::to_string(nodes) + "\nres 0.1\ndata\n" + tree;
}

}  // namespace

TEST_CASE("An OctoMap file of a few bytes whose leaf covers a billion voxels is refused before expanding", "[far][octomap]") {
  vt::TempDir dir("far");
  dir.write("bomb.bt", octomapBomb(6));
  CHECK(readBytes(dir / "bomb.bt").size() < 100);
  const auto start = std::chrono::steady_clock::now();
  const std::string message =
      vt::errorOf([&] { importOctomap(dir / "bomb.bt", OccupancyModel::octomap(), {256ull << 20, "raise --memory-budget"}); });
  CHECK_THAT(message, Contains("bomb.bt") && Contains("1073741824 known voxels") && Contains("32768 regions") &&
                          Contains("4096.0 MiB") && Contains("memory budget of 256.0 MiB") && Contains("raise --memory-budget"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  // The default budget (at most 2 GiB) refuses it too.
  CHECK_THAT(vt::errorOf([&] { importOctomap(dir / "bomb.bt"); }), Contains("memory budget"));

  // A leaf that fits the budget imports: 32^3 voxels at depth 11, one region.
  dir.write("small.bt", octomapBomb(11));
  const OccupancyMap small = importOctomap(dir / "small.bt", OccupancyModel::octomap(), {1ull << 20, ""});
  CHECK(small.regions().size() == 1);
  CHECK(small.counts().free == 32 * 32 * 32);
}

TEST_CASE("Map loads and render grids past the memory budget are refused before allocating", "[far]") {
  vt::TempDir dir("far");
  OccupancyMap map;
  for (int32_t x = 0; x < 4; ++x) map.region({x * 40, 0, 0}).occupancy()[0] = 3.0f;  // four occupied voxels, far apart
  saveMap(map, dir / "four.vxm");
  MapLoadOptions tight;
  tight.memoryBudgetBytes = 3 * map.bytesPerRegion();
  tight.budgetHint = "raise --memory-budget";
  CHECK_THAT(vt::errorOf([&] { loadMap(dir / "four.vxm", tight); }),
             Contains("four.vxm") && Contains("4 regions") && Contains("memory budget") && Contains("raise --memory-budget"));
  tight.memoryBudgetBytes = 4 * map.bytesPerRegion();
  const OccupancyMap loaded = loadMap(dir / "four.vxm", tight);
  CHECK(loaded.regions().size() == 4);

  // The grid spans 3 * 40 * 32 voxels in x: fine by samples, refused by a small budget.
  MapGridOptions grid;
  grid.memoryBudgetBytes = 1 << 20;
  grid.budgetHint = "render a part with --crop";
  CHECK_THAT(vt::errorOf([&] { gridFromOccupancy(loaded, grid); }),
             Contains("render grid") && Contains("memory budget of 1.0 MiB") && Contains("--crop"));
  grid.memoryBudgetBytes = 64ull << 20;
  CHECK(gridFromOccupancy(loaded, grid).occupiedVoxels == 4);

  // Two voxels 2^29 voxels apart: the span is refused by its extent, without a pass that
  // stores anything.
  OccupancyMap far;
  far.region({0, 0, 0}).occupancy()[0] = 3.0f;
  far.region({int32_t(1) << 24, 0, 0}).occupancy()[0] = 3.0f;
  CHECK_THAT(vt::errorOf([&] { gridFromOccupancy(far); }), Contains("more than 4096 samples on an axis") && Contains("with a crop box"));
}

// Lidar rays into the TSDF (voxen/tsdf/tsdf_rays.hpp, gpu_tsdf_rays.hpp): a hand-worked ray along
// an axis (the band's exact distances, a scan's weighted mean, the fold of a second scan, the
// linear drop-off), the GPU's voxels equal to the CPU reference's byte for byte on scans of an
// analytic scene (floor, wall, ball) from several positions, the same map for any split of a scan
// into batches, any CPU thread count and any chunking on the GPU, the mesh of a plane's ray TSDF
// on the plane, and settings that cannot work refused naming the field.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "support/gpu_fixture.hpp"
#include "tsdf/tsdf_map_checks.hpp"
#include "tsdf/tsdf_scene.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/mapper.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf_rays.hpp"

namespace {

using namespace voxen;
using voxen::test::requireSameTsdf;

OccupancyMap rayMap(double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  return OccupancyMap(model, LayerSet{kTsdfLayer});
}

gpu::TsdfVoxel voxelAt(const OccupancyMap& map, const VoxelCoord& v) {
  const Region* region = map.findRegion(map.regionOf(v));
  if (!region) return {0, 0};
  return region->values<gpu::TsdfVoxel>(kTsdfLayer)[map.localIndex(v)];
}

// A spinning lidar's scan at `origin`: `rings` elevations x `columns` azimuths, hits on the
// analytic scene (tsdf_scene.hpp); directions that hit nothing get a sample 100 m away (beyond
// the range: no measurement).
std::vector<Ray> sceneScan(const glm::dvec3& origin, int rings, int columns, double turn) {
  std::vector<Ray> rays;
  for (int r = 0; r < rings; ++r)
    for (int c = 0; c < columns; ++c) {
      const double elevation = -0.6 + 0.9 * r / (rings - 1), azimuth = turn + 6.283185307179586 * c / columns;
      const glm::dvec3 dir(std::cos(elevation) * std::cos(azimuth), std::cos(elevation) * std::sin(azimuth), std::sin(elevation));
      const double t = test::castScene(origin, dir);
      rays.push_back({origin, origin + dir * (std::isfinite(t) ? t : 100.0), 0.0, 0.0f});
    }
  return rays;
}

}  // namespace

TEST_CASE("A ray along x measures the band's exact distances; a scan folds its rays' weighted mean once", "[tsdf_rays]") {
  TsdfOptions options;
  options.truncationVoxels = 2;
  const glm::dvec3 o(0.5, 0.5, 0.5);
  // 1 m voxels: ray 1 hits at x = 10.5 (range 10), ray 2 at x = 9.5 (range 9). Voxel x's centre
  // is x voxels along the ray, so a ray of range R measures R - x where |R - x| <= 2.
  const std::vector<Ray> one{{o, {10.5, 0.5, 0.5}}}, both{{o, {10.5, 0.5, 0.5}}, {o, {9.5, 0.5, 0.5}}};
  const int64_t f = gpu::kTsdfFine;
  const auto at = [](const OccupancyMap& map, int x) { return voxelAt(map, {x, 0, 0}); };

  SECTION("one ray") {
    OccupancyMap map = rayMap(1.0);
    const TsdfScanStats stats = integrateRaysTsdfCpu(map, one, options);
    CHECK(stats.rays == 1);
    CHECK(stats.voxelsUpdated == 5);
    for (int x = 8; x <= 12; ++x) {
      INFO("voxel " << x);
      CHECK(at(map, x).distance == (10 - x) * f);
      CHECK(at(map, x).weight == gpu::kTsdfWeightUnit);
    }
    CHECK(at(map, 7).weight == 0);
    CHECK(at(map, 13).weight == 0);
    CHECK(voxelAt(map, {10, 1, 0}).weight == 0);  // beside the ray
  }
  SECTION("two rays in one scan: the weighted mean, weight summed; a second scan folds onto it") {
    OccupancyMap map = rayMap(1.0);
    integrateRaysTsdfCpu(map, both, options);
    const int64_t expected[] = {2 * f, 3 * f / 2, f / 2, -f / 2, -3 * f / 2, -2 * f};  // voxels 7 .. 12
    const uint32_t weights[] = {1, 2, 2, 2, 2, 1};
    for (int x = 7; x <= 12; ++x) {
      INFO("voxel " << x);
      CHECK(at(map, x).distance == expected[x - 7]);
      CHECK(at(map, x).weight == weights[x - 7] * gpu::kTsdfWeightUnit);
    }
    integrateRaysTsdfCpu(map, one, options);
    CHECK(at(map, 8).distance == tsdfFold({int(3 * f / 2), 32}, 2 * f, 16, 64 * 16).distance);
    CHECK(at(map, 8).distance == 109227);  // (32 x 98304 + 16 x 131072) / 48, rounded
    CHECK(at(map, 8).weight == 48);
  }
  SECTION("the linear drop-off: half weight one voxel behind, none at the band's end") {
    options.weighting = TsdfWeighting::LinearDropOff;
    OccupancyMap map = rayMap(1.0);
    integrateRaysTsdfCpu(map, one, options);
    CHECK(at(map, 10).weight == 16);
    CHECK(at(map, 11).weight == 8);
    CHECK(at(map, 11).distance == -f);
    CHECK(at(map, 12).weight == 0);
  }
  SECTION("no measurement from rays beyond the range or of length 0") {
    options.maxRange = 9.5;
    OccupancyMap map = rayMap(1.0);
    const std::vector<Ray> rays{{o, {10.5, 0.5, 0.5}}, {o, o}, {o, {0.5, 9.5, 0.5}}};
    const TsdfScanStats stats = integrateRaysTsdfCpu(map, rays, options);
    CHECK(stats.rays == 1);
    CHECK(stats.raysSkipped == 2);
    CHECK(at(map, 10).weight == 0);
    CHECK(voxelAt(map, {0, 9, 0}).distance == 0);
    CHECK(voxelAt(map, {0, 9, 0}).weight == 16);
  }
  SECTION("the GPU: the same voxels") {
    OccupancyMap cpu = rayMap(1.0), gpuMap = rayMap(1.0);
    integrateRaysTsdfCpu(cpu, both, options);
    integrateRaysTsdfCpu(cpu, one, options);
    {
      GpuTsdfRayIntegrator gpu(vt::gpu().scheduler, gpuMap, options);
      gpu.integrate(both);
      gpu.integrate(one);
    }
    requireSameTsdf(cpu, gpuMap, 6);
  }
}

TEST_CASE("The GPU's ray TSDF equals the CPU reference byte for byte, at any batching, chunking and thread count",
          "[tsdf_rays][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  const bool dropOff = GENERATE(false, true);
  INFO("linear drop-off: " << dropOff);
  TsdfOptions options;
  options.weighting = dropOff ? TsdfWeighting::LinearDropOff : TsdfWeighting::Constant;
  options.maxWeight = 20;  // reached within the scans
  options.truncationVoxels = 3.5;
  std::vector<std::vector<Ray>> scans;
  for (int s = 0; s < 3; ++s) scans.push_back(sceneScan({-0.3 + 0.4 * s, -0.4 + 0.1 * s, 0.9}, 24, 180, 0.1 * s));

  OccupancyMap cpu = rayMap(0.04), cpuOneThread = rayMap(0.04), gpuOne = rayMap(0.04), gpuBatches = rayMap(0.04);
  for (const auto& scan : scans) {
    integrateRaysTsdfCpu(cpu, scan, options, 5);
    integrateRaysTsdfCpu(cpuOneThread, scan, options, 1);
  }
  uint64_t chunks = 0;
  {
    GpuTsdfRayIntegrator gpu(scheduler, gpuOne, options);
    for (const auto& scan : scans) {
      const TsdfScanStats g = gpu.integrate(scan);
      CHECK(g.rays + g.raysSkipped == scan.size());
    }
  }
  {
    // A cache of 3 regions and accumulators of 40 blocks (at least a region's 64): many chunks,
    // regions evicted between them; each scan in three uneven batches.
    GpuTsdfRayIntegrator gpu(scheduler, gpuBatches, options, 3 * RegionCache::bytesPerRegion(gpuBatches), 40 * 8192);
    for (const auto& scan : scans) {
      const std::span<const Ray> all(scan);
      gpu.add(all.subspan(0, 1000));
      gpu.add(all.subspan(1000, 7));
      gpu.add(all.subspan(1007));
      if (&scan == &scans.back()) break;  // the last scan ended by the destructor
      chunks += gpu.endScan().chunks;
    }
  }
  CHECK(chunks > 4);
  requireSameTsdf(cpu, cpuOneThread);
  requireSameTsdf(cpu, gpuOne);
  requireSameTsdf(cpu, gpuBatches);
}

TEST_CASE("A scan reaching more blocks than the GPU's first block set holds: the set grows, the same voxels", "[tsdf_rays][gpu]") {
  // 1 cm voxels and a 20-voxel band: each ray's band crosses several 8 cm blocks, over 2^15 of them.
  TsdfOptions options;
  options.truncationVoxels = 20;
  OccupancyMap cpu = rayMap(0.01), gpuMap = rayMap(0.01);
  const std::vector<Ray> scan = sceneScan({0.2, 0.1, 1.0}, 48, 720, 0.05);
  const TsdfScanStats c = integrateRaysTsdfCpu(cpu, scan, options);
  TsdfScanStats g;
  {
    GpuTsdfRayIntegrator gpu(vt::gpu().scheduler, gpuMap, options);
    g = gpu.integrate(scan);
  }
  INFO("blocks " << c.blocks);
  CHECK(c.blocks > 32768);
  CHECK(g.blocks == c.blocks);
  CHECK(g.discoveryRetries > 0);
  requireSameTsdf(cpu, gpuMap);
}

TEST_CASE("Mapper::integrateCloudTsdf: the same map on the GPU and the CPU reference, between occupancy rays and depth frames",
          "[tsdf_rays][api]") {
  Context ctx(vt::gpu().scheduler);
  TsdfOptions options;
  options.truncationVoxels = 3;
  std::vector<OccupancyMap> maps;
  for (const MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference}) {
    MapperOptions mapperOptions;
    mapperOptions.model.resolution = 0.05;
    mapperOptions.extraLayers = LayerSet{kTsdfLayer};
    mapperOptions.run.backend = backend;
    Mapper mapper(ctx, mapperOptions);
    const std::vector<Ray> first = sceneScan({0.1, -0.2, 0.9}, 16, 120, 0.0), second = sceneScan({0.5, 0.1, 1.0}, 16, 120, 0.3);
    const TsdfScanStats stats = mapper.integrateCloudTsdf(first, options);
    CHECK(stats.rays > 1000);
    std::vector<Ray> hits;
    for (const Ray& ray : second)
      if (glm::length(ray.sample - ray.origin) < 50.0) hits.push_back(ray);
    mapper.integrate(hits);  // occupancy rays between scans: the GPU's integrators take turns
    mapper.integrateCloudTsdf(second, options);
    mapper.integrateCloudTsdf(first, options);  // scans in a row: the Mapper keeps its integrator
    // A depth frame between scans: the depth frames' integrator and the scans' take turns too.
    const glm::dquat alongX = glm::angleAxis(glm::half_pi<double>(), glm::dvec3(0.0, 1.0, 0.0));
    mapper.integrateDepth(test::sceneFrame(48, 36, 40.0, {0.2, 0.0, 1.0}, alongX, DepthEncoding::Float32), options);
    mapper.integrateCloudTsdf(second, options);
    mapper.sync();
    maps.push_back(mapper.map());
  }
  requireSameTsdf(maps[1], maps[0]);
}

TEST_CASE("The mesh of a plane's ray TSDF lies on the plane", "[tsdf_rays]") {
  // The wall x = 2 seen from three positions by cones of rays; 5 cm voxels.
  OccupancyMap map = rayMap(0.05);
  TsdfOptions options;
  for (int s = 0; s < 3; ++s) {
    const glm::dvec3 origin(0.2 * s, 0.3 * s - 0.3, 1.0);
    std::vector<Ray> scan;
    for (int i = -40; i <= 40; ++i)
      for (int j = -40; j <= 40; ++j) {
        const glm::dvec3 dir(1.0, 0.02 * i + 0.003 * s, 0.02 * j);
        scan.push_back({origin, origin + dir * ((2.0 - origin.x) / dir.x)});
      }
    integrateRaysTsdfCpu(map, scan, options);
  }
  const TsdfMesh mesh = meshTsdfCpu(map);
  REQUIRE(mesh.positions.size() > 500);
  // Within the patch every scan saw (|y| < 0.5, |z - 1| < 0.5); at its rim a vertex may
  // interpolate between a voxel one scan measured and one only another did.
  double worst = 0.0, worstInside = 0.0, sum = 0.0;
  for (const glm::vec3& p : mesh.positions) {
    const double error = std::abs(double(p.x) - 2.0);
    worst = std::max(worst, error);
    if (std::abs(p.y) < 0.5 && std::abs(p.z - 1.0) < 0.5) worstInside = std::max(worstInside, error);
    sum += error;
  }
  INFO("vertices " << mesh.positions.size() << ", mean |x - 2| " << sum / mesh.positions.size() << " m, worst " << worst
                   << " m, inside " << worstInside << " m");
  CHECK(sum / mesh.positions.size() < 0.005);  // a tenth of a voxel
  CHECK(worstInside < 0.005);                 // a tenth of a voxel
  CHECK(worst <= 0.025);                      // half a voxel
}

TEST_CASE("Ray TSDF settings that cannot work are refused naming the field", "[tsdf_rays]") {
  OccupancyMap map = rayMap(0.05);
  const std::vector<Ray> scan{{{0, 0, 0}, {1, 0, 0}}};
  const auto field = [&](const TsdfOptions& options) {
    try {
      integrateRaysTsdfCpu(map, scan, options);
    } catch (const SettingError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  TsdfOptions options;
  options.truncationVoxels = 0.5;
  CHECK(field(options) == "TsdfOptions::truncationVoxels");
  options = {};
  options.maxWeight = 0;
  CHECK(field(options) == "TsdfOptions::maxWeight");
  options = {};
  options.maxRange = -1;
  CHECK(field(options) == "TsdfOptions::maxRange");
  CHECK(map.regions().empty());  // nothing made by a refused scan
  SECTION("other settings than the map's tsdf layer was made with") {
    integrateRaysTsdfCpu(map, scan, {});
    options = {};
    options.truncationVoxels = 6;
    CHECK(field(options) == "TsdfOptions::truncationVoxels");
    CHECK_THROWS_AS(GpuTsdfRayIntegrator(vt::gpu().scheduler, map, options), SettingError);
  }
  SECTION("a region size that is not a multiple of 8") {
    OccupancyModel model;
    model.regionSize = 12;
    OccupancyMap odd(model);
    CHECK_THROWS_AS(integrateRaysTsdfCpu(odd, scan, {}), SettingError);
  }
}

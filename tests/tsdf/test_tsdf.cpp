// The TSDF (engine/tsdf): the CPU reference against the geometry of an analytic scene (the
// distance to a wall seen head-on, the sign in front and behind, what is never reached), and
// the GPU's voxels equal to the CPU reference's bit for bit over several frames (turning
// cameras, 16-bit and float images, odd image sizes, both weightings, a cache of a few regions,
// negative coordinates); bad frames and settings refused.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "support/gpu_fixture.hpp"
#include "tsdf/tsdf_map_checks.hpp"
#include "tsdf/tsdf_scene.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/tsdf/gpu_tsdf.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_occupancy.hpp"

namespace {

using namespace voxen;
using voxen::test::requireSameTsdf;
using voxen::test::lookingAlongX;
using voxen::test::sceneFrame;

OccupancyMap tsdfMap(double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  return OccupancyMap(model, LayerSet{kTsdfLayer});
}

gpu::TsdfVoxel voxelAt(const OccupancyMap& map, const VoxelCoord& v) {
  const Region* region = map.findRegion(map.regionOf(v));
  if (!region) return {0, 0};
  return region->values<gpu::TsdfVoxel>(kTsdfLayer)[map.localIndex(v)];
}

}  // namespace

TEST_CASE("The CPU TSDF measures the distance to a wall seen head-on", "[tsdf]") {
  OccupancyMap map = tsdfMap(0.05);
  // At (0.5, 0.2, 1.0) looking along +x at the wall x = 3: depth 2.5 m at the image's centre.
  const DepthFrame frame = sceneFrame(64, 48, 60.0, {0.5, 0.2, 1.0}, lookingAlongX(0, 0), DepthEncoding::Float32);
  const TsdfFrameStats stats = integrateDepthCpu(map, frame, TsdfOptions{});
  CHECK(stats.blocks > 0);
  CHECK(stats.voxelsUpdated > 0);
  CHECK(map.derivedSettings(kTsdfLayer) == TsdfOptions{}.settingsText());
  // Along the camera's axis (y = 0.2 -> voxel 4, z = 1.0 -> voxel 20): voxel x centres 0.05 i + 0.025.
  // The band [2.8, 3.2] reaches blocks 7 and 8 (voxels 56..71) only.
  const double truncation = 4 * 0.05;
  for (int32_t i = 56; i <= 71; ++i) {
    const double centre = 0.05 * i + 0.025, expected = 3.0 - centre;  // the wall minus the voxel, along z
    const gpu::TsdfVoxel v = voxelAt(map, {i, 4, 20});
    INFO("voxel x " << i << " centre " << centre);
    if (expected < -truncation) {
      CHECK(v.weight == 0);  // behind the band
      continue;
    }
    REQUIRE(v.weight == gpu::kTsdfWeightUnit);
    const double metres = double(v.distance) / double(gpu::kTsdfFine) * 0.05;
    CHECK(metres == Approx(expected).margin(1e-4));
  }
  CHECK(voxelAt(map, {55, 4, 20}).weight == 0);  // in front of the band, in a block no band reaches
}

TEST_CASE("The CPU TSDF folds frames: means, weights, the cap and the linear drop-off", "[tsdf]") {
  const uint32_t w = gpu::kTsdfWeightUnit;
  gpu::TsdfVoxel v{0, 0};
  v = tsdfFold(v, 1000, w, 3 * w);
  CHECK(v.distance == 1000);
  CHECK(v.weight == w);
  v = tsdfFold(v, -1001, w, 3 * w);
  CHECK(v.distance == -1);  // (1000 - 1001) / 2 = -0.5, rounded away from zero
  CHECK(v.weight == 2 * w);
  v = tsdfFold(v, 3, w, 3 * w);
  v = tsdfFold(v, 3, w, 3 * w);
  CHECK(v.weight == 3 * w);  // capped
  CHECK(gpu::tsdfWeightOf(-2, 8, gpu::kTsdfWeightLinearDropOff) == w * 6 / 8);
  CHECK(gpu::tsdfWeightOf(-8, 8, gpu::kTsdfWeightLinearDropOff) == 0);
  CHECK(gpu::tsdfWeightOf(-8, 8, gpu::kTsdfWeightConstant) == w);
}

TEST_CASE("The TSDF's integer square root is the exact floor, and the ray distance scales by |p| / z", "[tsdf]") {
  std::mt19937_64 random(9);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t n = i < 1000 ? uint64_t(i) : (random() >> (random() % 64));
    const uint64_t r = gpu::tsdfIsqrt(n);
    INFO("n = " << n);
    REQUIRE((unsigned __int128)r * r <= n);
    REQUIRE((unsigned __int128)(r + 1) * (r + 1) > n);
  }
  for (uint64_t k : {uint64_t(1) << 31, (uint64_t(1) << 32) - 1}) {
    CHECK(gpu::tsdfIsqrt(k * k) == k);
    CHECK(gpu::tsdfIsqrt(k * k - 1) == k - 1);
  }
  // Head-on the ray distance is the depth difference; at 45 degrees, sqrt(2) times it.
  CHECK(gpu::tsdfRayDistance(1000, 0, 0, 65536) == 1000);
  CHECK(gpu::tsdfRayDistance(-1000, 65536, 0, 65536) == -1414);
}

TEST_CASE("The TSDF's divisions from float estimates are the exact integer quotients", "[tsdf]") {
  // tsdfFloorDivExact and tsdfRoundDivExact replace 64-bit divisions in the per-voxel math: they
  // must equal the plain integer quotient for every operand the passes give (|a| < 2^62, b > 0).
  std::mt19937_64 random(11);
  const auto check = [](int64_t a, int64_t b) {
    INFO("a = " << a << ", b = " << b);
    REQUIRE(gpu::tsdfFloorDivExact(a, b) == gpu::tsdfFloorDiv(a, b));
    if (a < (int64_t(1) << 61) && a > -(int64_t(1) << 61)) REQUIRE(gpu::tsdfRoundDivExact(a, b) == gpu::tsdfRoundDiv(a, b));
  };
  for (int64_t a = -300; a <= 300; ++a)
    for (int64_t b : {1, 2, 3, 7, 16, 17, 65536, 65537}) check(a, b);
  for (int i = 0; i < 200000; ++i) {
    const int64_t a = int64_t(random() >> (2 + random() % 62)) * (random() % 2 ? 1 : -1);
    const int64_t b = int64_t(random() >> (24 + random() % 40)) + 1;
    check(a, b);
    check(a - a % b, b);  // exact multiples, and one off them
    check(a - a % b - 1, b);
  }
  const int64_t big = (int64_t(1) << 62) - 1;
  for (int64_t b : {int64_t(1), int64_t(3), int64_t(65535), (int64_t(1) << 31) - 1, int64_t(1) << 40}) {
    check(big, b);
    check(-big, b);
  }
}

TEST_CASE("The GPU TSDF equals the CPU reference bit for bit", "[tsdf][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  const bool float32 = GENERATE(false, true);
  const bool dropOff = GENERATE(false, true);
  INFO("float images: " << float32 << ", linear drop-off: " << dropOff);
  TsdfOptions options;
  options.weighting = dropOff ? TsdfWeighting::LinearDropOff : TsdfWeighting::Constant;
  options.maxWeight = 3;  // reached within the frames
  options.truncationVoxels = 3.5;
  OccupancyMap cpu = tsdfMap(0.04), gpuMap = tsdfMap(0.04);
  {
    // A cache of 6 regions: the frames' regions come in several chunks and are evicted between frames.
    GpuTsdfIntegrator gpu(scheduler, gpuMap, options, 6 * RegionCache::bytesPerRegion(gpuMap));
    uint64_t chunks = 0;
    for (int f = 0; f < 5; ++f) {
      // From (-0.3 + 0.2 f, -0.4, 0.9): negative coordinates, turning and tilting; 71 x 53 (odd) pixels.
      const DepthFrame frame = sceneFrame(71, 53, 55.0, {-0.3 + 0.2 * f, -0.4, 0.9}, lookingAlongX(0.15 * f - 0.3, 0.1 * f - 0.2),
                                          float32 ? DepthEncoding::Float32 : DepthEncoding::Unsigned16);
      const TsdfFrameStats c = integrateDepthCpu(cpu, frame, options);
      const GpuTsdfFrameStats g = gpu.integrate(frame);
      CHECK(g.blocks == c.blocks);
      chunks += g.chunks;
    }
    CHECK(chunks > 5);
    gpu.sync();
  }
  requireSameTsdf(cpu, gpuMap);
}

TEST_CASE("TSDF frames and settings that cannot work are refused", "[tsdf]") {
  OccupancyMap map = tsdfMap(0.05);
  DepthFrame frame = sceneFrame(16, 12, 20.0, {0, 0, 1}, lookingAlongX(0, 0), DepthEncoding::Unsigned16);
  SECTION("an image whose size differs from its intrinsics") {
    frame.intrinsics.width = 17;
    CHECK_THROWS_WITH(integrateDepthCpu(map, frame, {}), Catch::Contains("16 x 12 pixels, its camera's intrinsics 17 x 12"));
  }
  SECTION("a focal length of 0") {
    frame.intrinsics.fx = 0;
    CHECK_THROWS_WITH(integrateDepthCpu(map, frame, {}), Catch::Contains("0 < fx, fy"));
  }
  SECTION("a truncation out of range") {
    TsdfOptions options;
    options.truncationVoxels = 0.5;
    CHECK_THROWS_AS(integrateDepthCpu(map, frame, options), SettingError);
  }
  SECTION("other settings than the map's tsdf layer was made with") {
    integrateDepthCpu(map, frame, {});
    TsdfOptions options;
    options.truncationVoxels = 6;
    try {
      integrateDepthCpu(map, frame, options);
      FAIL("accepted");
    } catch (const SettingError& e) {
      CHECK(e.field() == "TsdfOptions::truncationVoxels");
      CHECK_THAT(e.what(), Catch::Contains("truncation_voxels=4"));
    }
  }
  SECTION("a region size that is not a multiple of 8") {
    OccupancyModel model;
    model.regionSize = 12;
    OccupancyMap odd(model);
    CHECK_THROWS_AS(integrateDepthCpu(odd, frame, {}), SettingError);
  }
}

TEST_CASE("Occupancy from the TSDF: on and behind the wall occupied, in front free, rays' voxels kept", "[tsdf]") {
  OccupancyMap map = tsdfMap(0.05);
  const DepthFrame frame = sceneFrame(64, 48, 60.0, {0.5, 0.2, 1.0}, lookingAlongX(0, 0), DepthEncoding::Float32);
  integrateDepthCpu(map, frame, TsdfOptions{});
  // A voxel a ray observed as free just behind the wall keeps its value.
  map.region(map.regionOf(VoxelCoord{61, 4, 20})).occupancy()[map.localIndex(VoxelCoord{61, 4, 20})] = -1.0f;
  const TsdfOccupancyStats stats = occupancyFromTsdf(map);
  CHECK(stats.occupied > 100);
  CHECK(stats.free > 100);
  // The wall at x = 3.0: voxel 59 (centre 2.975, 0.025 in front) free, 60 (3.025, behind) occupied.
  CHECK(map.classify(VoxelCoord{59, 4, 20}) == VoxelClass::Free);
  CHECK(map.classify(VoxelCoord{60, 4, 20}) == VoxelClass::Occupied);
  CHECK(map.classify(VoxelCoord{62, 4, 20}) == VoxelClass::Occupied);
  CHECK(map.value(VoxelCoord{61, 4, 20}) == -1.0f);  // the ray's
  CHECK(map.classify(VoxelCoord{20, 4, 20}) == VoxelClass::Unobserved);  // no block reached
  OccupancyMap plain;
  CHECK_THROWS_WITH(occupancyFromTsdf(plain), Catch::Contains("no 'tsdf' layer"));
}

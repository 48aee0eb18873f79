// Mapper::bounds(): the box of the observed voxels, against the box worked out by hand for a
// few rays and against every voxel of the map read one by one (a lidar run on the GPU and on
// the CPU reference); none for a map with no observed voxel, regions or not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"

namespace {

using namespace voxen;

constexpr GpuIntegratorOptions kGpu{.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16};

MapperOptions options(MapperBackend backend) {
  MapperOptions o;
  o.model.resolution = 0.1;
  o.run.backend = backend;
  o.run.gpu = kGpu;
  return o;
}

// Every voxel of every region, one by one: the inclusive box of those a ray touched.
std::optional<std::pair<VoxelCoord, VoxelCoord>> voxelBox(const OccupancyMap& map) {
  std::optional<std::pair<VoxelCoord, VoxelCoord>> box;
  for (const auto& [key, region] : map.regions())
    for (uint32_t i = 0; i < map.voxelsPerRegion(); ++i) {
      if (region.occupancy()[i] == kUnobserved) continue;
      const VoxelCoord v = map.voxelOf(key, i);
      if (!box) {
        box = std::pair{v, v};
        continue;
      }
      box->first = {std::min(box->first.x, v.x), std::min(box->first.y, v.y), std::min(box->first.z, v.z)};
      box->second = {std::max(box->second.x, v.x), std::max(box->second.y, v.y), std::max(box->second.z, v.z)};
    }
  return box;
}

void requireBoundsOfVoxels(Mapper& mapper) {
  const std::optional<MapBounds> bounds = mapper.bounds();
  const auto box = voxelBox(mapper.map());
  REQUIRE(box);
  REQUIRE(bounds);
  CHECK(bounds->firstVoxel == box->first);
  CHECK(bounds->lastVoxel == box->second);
  const double r = mapper.map().model().resolution;
  CHECK(bounds->min == glm::dvec3(box->first.x, box->first.y, box->first.z) * r);
  CHECK(bounds->max == (glm::dvec3(box->second.x, box->second.y, box->second.z) + 1.0) * r);
}

}  // namespace

TEST_CASE("Mapper::bounds of an empty map is none", "[api][mapper][bounds]") {
  Context ctx(vt::gpu().scheduler);
  for (const MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference}) {
    Mapper mapper(ctx, options(backend));
    CHECK_FALSE(mapper.bounds());
  }
  // Regions, but no voxel a ray touched: still none (the box is of observed voxels).
  OccupancyMap map(options(MapperBackend::CpuReference).model);
  map.region({0, 0, 0});
  map.region({-3, 2, 1});
  Mapper loaded = Mapper::fromMap(ctx, std::move(map), {.backend = MapperBackend::CpuReference});
  CHECK(loaded.map().regions().size() == 2);
  CHECK_FALSE(loaded.bounds());
}

TEST_CASE("Mapper::bounds of a few rays is the box worked out by hand", "[api][mapper][bounds]") {
  Context ctx(vt::gpu().scheduler);
  // From the centre of voxel (0, 0, 0): one ray along +x to voxel 10's centre, one down -y
  // (into region -1) and up +z to voxel (0, -10, 5). Every voxel they touch lies in
  // (0, -10, 0) .. (10, 0, 5), and the ends of each axis are touched.
  const std::vector<glm::dvec3> origins{{0.05, 0.05, 0.05}, {0.05, 0.05, 0.05}};
  const std::vector<glm::dvec3> ends{{1.05, 0.05, 0.05}, {0.05, -0.95, 0.55}};
  for (const MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference}) {
    INFO((backend == MapperBackend::Gpu ? "GPU" : "CPU reference"));
    Mapper mapper(ctx, options(backend));
    mapper.integrateRays(origins, ends);
    const std::optional<MapBounds> bounds = mapper.bounds();
    REQUIRE(bounds);
    CHECK(bounds->firstVoxel == VoxelCoord{0, -10, 0});
    CHECK(bounds->lastVoxel == VoxelCoord{10, 0, 5});
    CHECK(bounds->min.x == Approx(0.0).margin(1e-12));
    CHECK(bounds->min.y == Approx(-1.0));
    CHECK(bounds->min.z == Approx(0.0).margin(1e-12));
    CHECK(bounds->max.x == Approx(1.1));
    CHECK(bounds->max.y == Approx(0.1));
    CHECK(bounds->max.z == Approx(0.6));
    requireBoundsOfVoxels(mapper);
    // More rays widen it; rays inside it leave it as it was.
    mapper.integrateRays(std::vector<glm::dvec3>{{0.05, 0.05, 0.05}}, std::vector<glm::dvec3>{{0.55, -0.45, 0.35}});
    CHECK(mapper.bounds()->lastVoxel == VoxelCoord{10, 0, 5});
    mapper.integrateRays(std::vector<glm::dvec3>{{0.05, 0.05, 0.05}}, std::vector<glm::dvec3>{{-0.35, 0.05, 0.05}});
    CHECK(mapper.bounds()->firstVoxel == VoxelCoord{-4, -10, 0});
    requireBoundsOfVoxels(mapper);
  }
}

TEST_CASE("Mapper::bounds of a lidar run is the box of its observed voxels", "[api][mapper][bounds][gpu]") {
  Context ctx(vt::gpu().scheduler);
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(1);
  for (const MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference}) {
    INFO((backend == MapperBackend::Gpu ? "GPU" : "CPU reference"));
    Mapper mapper(ctx, options(backend));
    mapper.integrate(rays);
    CHECK(mapper.map().regions().size() > 8);
    requireBoundsOfVoxels(mapper);
  }
}

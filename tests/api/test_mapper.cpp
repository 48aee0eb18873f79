// voxen::Context and voxen::Mapper (engine/api): a map built through the Mapper is the map of
// the integrators wired by hand, bit for bit, on the GPU and with the CPU reference; clouds
// with a trajectory, save and load (and mapping on after a load), clearance and the
// single-voxel reads against the CPU reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/trajectory.hpp"
#include "voxen/mapper.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

constexpr GpuIntegratorOptions kGpu{.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16};

void requireIdentical(const OccupancyMap& a, const OccupancyMap& b) {
  const Comparison c = compareMaps(a, b);
  INFO("voxels " << c.voxels << ", same bits " << c.sameBits << ", layer mismatches " << c.layerMismatches
                 << ", traversal mismatches " << c.traversalMismatches);
  CHECK(c.voxels > 1000);
  CHECK(c.identical());
}

MapperOptions withLayers(MapperBackend backend, UpdateOrder order) {
  MapperOptions options;
  options.extraLayers = kAllLayers;
  options.run.backend = backend;
  options.run.integration.order = order;
  options.run.gpu = kGpu;
  return options;
}

}  // namespace

TEST_CASE("A Mapper maps rays bit for bit as the integrators wired by hand", "[api][mapper][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(3);
  Context ctx(vt::gpu().scheduler);
  for (const UpdateOrder order : {UpdateOrder::Sequential, UpdateOrder::TwoPhase}) {
    INFO(updateOrderName(order));
    const Run byHand = runGpu(rays, {.order = order}, {}, kAllLayers, kGpu);
    Mapper mapper(ctx, withLayers(MapperBackend::Gpu, order));
    // In pieces that do not follow the batches: the GPU cuts its own.
    const std::span<const Ray> all(rays);
    mapper.integrate(all.first(10000));
    mapper.integrate(all.subspan(10000));
    requireIdentical(mapper.map(), byHand.map);
    const MapperStats stats = mapper.stats();
    CHECK(stats.integration.rays == byHand.stats.rays);
    CHECK(stats.integration.voxelUpdates == byHand.stats.voxelUpdates);
    CHECK(stats.counts.occupied == byHand.map.counts().occupied);
  }
  SECTION("the CPU reference backend is the CpuIntegrator's map, one call one batch") {
    const Run byHand = runCpu(rays, {.order = UpdateOrder::TwoPhase}, {}, kAllLayers, rays.size());
    Mapper mapper(ctx, withLayers(MapperBackend::CpuReference, UpdateOrder::TwoPhase));
    mapper.integrate(rays);
    requireIdentical(mapper.map(), byHand.map);
  }
  vt::flushGpu();
}

TEST_CASE("Mapper::integrateRays takes origins and ends; integrateCloud points, times and a trajectory",
          "[api][mapper][gpu]") {
  Context ctx(vt::gpu().scheduler);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coord(-6.0, 6.0), time(-0.2, 1.2);
  const Trajectory trajectory({{0.0, {-1.0, 0.0, 0.5}}, {0.5, {0.0, 1.0, 0.7}}, {1.0, {1.0, 0.5, 0.9}}});
  std::vector<glm::dvec3> points(30000), origins;
  std::vector<double> times(points.size());
  std::vector<Ray> expected;
  for (size_t i = 0; i < points.size(); ++i) {
    points[i] = {coord(rng), coord(rng), coord(rng) * 0.3};
    times[i] = time(rng);
    if (trajectory.contains(times[i])) expected.push_back({trajectory.positionAt(times[i]), points[i], times[i]});
  }
  REQUIRE(expected.size() < points.size());  // some times lie outside the trajectory

  SECTION("a cloud with a trajectory: the rays from the interpolated origins, the rest counted") {
    const Run byHand = runGpu(expected, {}, {}, kAllLayers, kGpu);
    Mapper mapper(ctx, withLayers(MapperBackend::Gpu, UpdateOrder::Sequential));
    const CloudStats cloud = mapper.integrateCloud(points, times, trajectory);
    CHECK(cloud.points == points.size());
    CHECK(cloud.rays == expected.size());
    CHECK(cloud.skippedOutsideTrajectory == points.size() - expected.size());
    requireIdentical(mapper.map(), byHand.map);
  }
  SECTION("origins and ends: rays at time 0") {
    std::vector<Ray> atZero = expected;
    for (Ray& r : atZero) {
      r.time = 0.0;
      origins.push_back(r.origin);
    }
    std::vector<glm::dvec3> ends;
    for (const Ray& r : atZero) ends.push_back(r.sample);
    const Run byHand = runGpu(atZero, {}, {}, kAllLayers, kGpu);
    Mapper mapper(ctx, withLayers(MapperBackend::Gpu, UpdateOrder::Sequential));
    mapper.integrateRays(origins, ends);
    requireIdentical(mapper.map(), byHand.map);
    CHECK_THROWS_WITH(mapper.integrateRays(origins, std::span(ends).first(3)),
                      Catch::Contains("origins and 3 ends"));
  }
  vt::flushGpu();
}

TEST_CASE("A Mapper saved and loaded holds the same map, and maps on to the map of one run", "[api][mapper][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(4);
  const std::span<const Ray> all(rays), first = all.first(2 * 16384), rest = all.subspan(2 * 16384);
  vt::TempDir dir("api-mapper");
  Context ctx(vt::gpu().scheduler);
  Mapper whole(ctx, withLayers(MapperBackend::Gpu, UpdateOrder::Sequential));
  whole.integrate(rays);

  Mapper part(ctx, withLayers(MapperBackend::Gpu, UpdateOrder::Sequential));
  part.integrate(first);
  part.save(dir.path() / "part.vxm");
  Mapper loaded = Mapper::load(ctx, dir.path() / "part.vxm", withLayers(MapperBackend::Gpu, UpdateOrder::Sequential).run);
  requireIdentical(loaded.map(), part.map());
  CHECK(loaded.map().model().resolution == part.map().model().resolution);
  CHECK(loaded.map().timeOrigin() == part.map().timeOrigin());
  // In the sequential order the map does not depend on where the rays were cut.
  loaded.integrate(rest);
  requireIdentical(loaded.map(), whole.map());

  SECTION("a missing file is an Error naming it") {
    CHECK_THROWS_WITH(Mapper::load(ctx, dir.path() / "none.vxm"), Catch::Contains("none.vxm"));
  }
  SECTION("NDT integration on a map without the NDT layers is refused, naming the file") {
    MapperRunOptions ndt;
    ndt.integration.ndt.mode = NdtMode::Om;
    CHECK_THROWS_WITH(Mapper::load(ctx, dir.path() / "part.vxm", ndt), Catch::Contains("part.vxm") && Catch::Contains("NDT"));
  }
  vt::flushGpu();
}

TEST_CASE("Mapper clearance equals the CPU reference; the single-voxel reads read the map", "[api][mapper][clearance][gpu]") {
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.model.resolution = 0.25;
  options.run.gpu = kGpu;
  Mapper mapper(ctx, options);
  mapper.integrate(smallLidarRun(2));
  CHECK_THROWS_WITH(mapper.clearanceAt(glm::dvec3(0.0)), Catch::Contains("computeClearance"));

  OccupancyMap reference = mapper.map();
  const ClearanceOptions clearance{.range = 1.5};
  computeClearanceCpu(reference, clearance);
  const ClearanceStats stats = mapper.computeClearance(clearance);
  CHECK(stats.regions == reference.regions().size());
  requireIdentical(mapper.map(), reference);

  // Every voxel of one region, read through the Mapper, against the reference's layer.
  const Region& region = reference.regions().begin()->second;
  uint64_t checked = 0, occupied = 0;
  for (uint32_t i = 0; i < reference.voxelsPerRegion(); i += 7) {
    const VoxelCoord voxel = reference.voxelOf(region.key, i);
    const glm::dvec3 centre = reference.voxelCentre(voxel);
    const std::optional<float> value = mapper.clearanceAt(centre);
    REQUIRE(value);
    CHECK(*value == region.values<float>(clearanceLayer())[i]);
    const OccupancySample sample = mapper.occupancyAt(centre);
    CHECK(sample.voxel == voxel);
    CHECK(std::memcmp(&sample.logOdds, &region.occupancy()[i], 4) == 0);
    CHECK(sample.voxelClass == reference.classify(voxel));
    occupied += sample.voxelClass == VoxelClass::Occupied;
    ++checked;
  }
  CHECK(checked > 4000);
  // Far from every region: no clearance, an unobserved voxel.
  CHECK_FALSE(mapper.clearanceAt(glm::dvec3(1e4, 1e4, 1e4)).has_value());
  CHECK(mapper.occupancyAt(glm::dvec3(1e4, 1e4, 1e4)).voxelClass == VoxelClass::Unobserved);

  // Mapping on after the clearance: the integrator works on the map's new layout, and an
  // update recomputes only what changed, to the reference's values.
  mapper.integrate(smallLidarRun(3));
  OccupancyMap again = mapper.map();
  computeClearanceCpu(again, clearance);
  mapper.computeClearance(clearance);
  requireIdentical(mapper.map(), again);
  vt::flushGpu();
}

TEST_CASE("A Context chooses its device by index or name, and opens it at the first use", "[api][context]") {
  CHECK(DeviceChoice::parse("").isBest());
  CHECK(DeviceChoice::parse("1").indexChosen() == 1u);
  CHECK(DeviceChoice::parse("llvmpipe").nameChosen() == "llvmpipe");
  CHECK(DeviceChoice::parse("12345678901").nameChosen() == "12345678901");
  ContextOptions options;
  options.memoryBudgetBytes = 64ull << 20;
  options.memoryHint = "raise --my-budget";
  Context ctx(options);
  CHECK_FALSE(ctx.isOpen());
  CHECK(ctx.memoryBudgetBytes() == 64ull << 20);
  // A map that needs no device: the CPU reference backend opens none.
  MapperOptions cpu;
  cpu.run.backend = MapperBackend::CpuReference;
  Mapper mapper(ctx, cpu);
  mapper.integrate(std::vector<Ray>{{{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, 0.0}});
  CHECK(mapper.stats().integration.rays == 1);
  CHECK_FALSE(ctx.isOpen());
  // The GPU cache must leave room for the map in the budget: a SettingError naming the field.
  MapperOptions big;
  big.run.gpu.cacheBytes = 64ull << 20;
  try {
    Mapper tooBig(ctx, big);
    FAIL("a cache as large as the budget was accepted");
  } catch (const SettingError& e) {
    CHECK(e.field() == "GpuIntegratorOptions::cacheBytes");
    CHECK_THAT(e.what(), Catch::Contains("raise --my-budget"));
  }
  // A loaded map that is only read needs no room for a GPU cache it never allocates.
  vt::TempDir dir("api-context");
  mapper.save(dir.path() / "small.vxm");
  Mapper loaded = Mapper::load(ctx, dir.path() / "small.vxm", {.gpu = {.cacheBytes = 256ull << 20}});
  CHECK(loaded.occupancyAt(glm::dvec3(1.0, 0.0, 0.0)).voxelClass == VoxelClass::Occupied);
  CHECK_FALSE(ctx.isOpen());
}

TEST_CASE("A Context opens its own validated device", "[api][context][gpu]") {
  const DeviceOptions validated = vt::validatedDeviceOptions();
  ContextOptions options;
  options.validation = true;
  options.onValidationMessage = validated.onValidationMessage;
  Context ctx(options);
  Mapper mapper(ctx, {.model = {.resolution = 0.2}});
  mapper.integrateRays(std::vector<glm::dvec3>{{0.0, 0.0, 0.0}}, std::vector<glm::dvec3>{{3.0, 1.0, 0.5}});
  CHECK(ctx.isOpen());
  CHECK(ctx.device().validationEnabled());
  CHECK(mapper.occupancyAt(glm::dvec3(3.0, 1.0, 0.5)).voxelClass == VoxelClass::Occupied);
  CHECK(mapper.occupancyAt(glm::dvec3(1.5, 0.5, 0.25)).voxelClass == VoxelClass::Free);
}

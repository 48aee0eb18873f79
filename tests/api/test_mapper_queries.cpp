// The Mapper's batched queries (voxen/query through engine/api): the GPU's answers equal the
// CPU references' on the Mapper's own map, and after more rays or a clearance the queries
// read the changed map, never the one they loaded first; small queries answered on the CPU
// (MapperRunOptions::hostQueryVoxels) equal the GPU's and submit nothing.
#include <catch2/catch.hpp>

#include <random>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/context.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/mapper.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace {

using namespace voxen;
using namespace vt::occupancy;

std::vector<glm::dvec3> pointsAround(const OccupancyMap& map, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<glm::dvec3> points;
  const std::vector<RegionKey> keys = [&] {
    std::vector<RegionKey> k;
    for (const auto& [key, region] : map.regions()) k.push_back(key);
    return k;
  }();
  REQUIRE(!keys.empty());
  const double edge = map.model().resolution * map.model().regionSize;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (size_t i = 0; i < count; ++i) {
    const RegionKey& k = keys[rng() % keys.size()];
    points.push_back({(k.x + u(rng)) * edge, (k.y + u(rng)) * edge, (k.z + u(rng)) * edge});
  }
  return points;
}

}  // namespace

TEST_CASE("A Mapper's queries equal the CPU references and follow the map as it changes", "[api][mapper][query][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(3);
  const std::span<const Ray> all(rays);
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.run.gpu = {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16};
  Mapper mapper(ctx, options);
  mapper.integrate(all.first(all.size() / 3));

  const std::vector<glm::dvec3> points = pointsAround(mapper.map(), 20000, 7);
  std::vector<QueryRay> queryRays;
  for (size_t i = 0; i < all.size(); i += 97)
    queryRays.push_back({all[i].origin, all[i].sample - all[i].origin, 5.0});

  const std::vector<OccupancyAnswer> first = mapper.occupancy(points);
  CHECK(first == cpuOccupancy(mapper.map(), points));
  const std::vector<RayHit> firstHits = mapper.raycast(queryRays);
  CHECK(firstHits == cpuRaycast(mapper.map(), queryRays));

  // More rays: the queries must read the map as it is now.
  mapper.integrate(all.subspan(all.size() / 3));
  const std::vector<OccupancyAnswer> second = mapper.occupancy(points);
  CHECK(second == cpuOccupancy(mapper.map(), points));
  CHECK(second != first);
  const std::vector<RayHit> secondHits = mapper.raycast(queryRays, {.unknownBlocks = true});
  CHECK(secondHits == cpuRaycast(mapper.map(), queryRays, {.unknownBlocks = true}));

  CHECK_THROWS_AS(mapper.clearance(points), Error);  // no clearance layer yet
  ClearanceOptions clearance;
  clearance.range = 1.0;
  mapper.computeClearance(clearance);
  const std::vector<ClearanceSample> samples = mapper.clearance(points);
  CHECK(samples == cpuClearance(mapper.map(), points));
  size_t interpolated = 0;
  for (const ClearanceSample& s : samples) interpolated += s.clearance >= 0.0f;
  CHECK(interpolated > 1000);

  const QueryBox box{points[0] - glm::dvec3(1.0), points[0] + glm::dvec3(1.0)};
  const BoxVoxels free = mapper.voxelsInBox(box, VoxelClass::Free);
  const BoxVoxels expected = cpuVoxelsInBox(mapper.map(), box, VoxelClass::Free);
  CHECK(free.count == expected.count);
  CHECK(free.voxels == expected.voxels);
}

TEST_CASE("A CPU-reference Mapper answers queries with the CPU references", "[api][mapper][query]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.run.backend = MapperBackend::CpuReference;
  Mapper mapper(ctx, options);
  mapper.integrate(rays);
  const std::vector<glm::dvec3> points = pointsAround(mapper.map(), 2000, 3);
  const std::vector<OccupancyAnswer> answers = mapper.occupancy(points);
  CHECK(answers == cpuOccupancy(mapper.map(), points));
  size_t observed = 0;
  for (const OccupancyAnswer& a : answers) observed += a.voxelClass != VoxelClass::Unobserved;
  CHECK(observed > 100);
}

TEST_CASE("A GPU Mapper answers small queries on the CPU, without a GPU round trip", "[api][mapper][query][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  Context ctx(vt::gpu().scheduler);
  Mapper mapper(ctx);
  mapper.integrate(rays);
  const std::vector<glm::dvec3> points = pointsAround(mapper.map(), 600, 11);  // map() syncs
  const std::vector<QueryRay> one{{rays[5].origin, rays[5].sample - rays[5].origin, 5.0}};
  const Scheduler& scheduler = mapper.scheduler();  // the Mapper records on its own
  const uint64_t before = scheduler.stats().submissions;
  CHECK(mapper.occupancy(std::span(points).first(1)) == cpuOccupancy(mapper.map(), std::span(points).first(1)));
  CHECK(mapper.raycast(one) == cpuRaycast(mapper.map(), one));
  CHECK(scheduler.stats().submissions == before);
  // Above the bound (600 points read 600 voxels) the GPU answers.
  CHECK(mapper.occupancy(points) == cpuOccupancy(mapper.map(), points));
  CHECK(scheduler.stats().submissions > before);
}

TEST_CASE("Small queries interleaved with integration give the CPU reference's answers on either path",
          "[api][mapper][query][gpu]") {
  const std::vector<Ray> rays = smallLidarRun(2);
  const std::span<const Ray> all(rays);
  Context ctx(vt::gpu().scheduler);
  MapperOptions gpuOnly, cpu;
  gpuOnly.run.hostQueryVoxels = 0;
  cpu.run.backend = MapperBackend::CpuReference;
  Mapper small(ctx), everyOnGpu(ctx, gpuOnly), reference(ctx, cpu);
  const size_t parts = 5;
  std::vector<glm::dvec3> points;
  for (size_t part = 0; part < parts; ++part) {
    const std::span<const Ray> chunk = all.subspan(part * all.size() / parts, all.size() / parts);
    for (Mapper* m : {&small, &everyOnGpu, &reference}) m->integrate(chunk);
    if (points.empty()) points = pointsAround(reference.map(), 64, 13);
    for (size_t i = 0; i < points.size(); i += 7) {
      const std::span<const glm::dvec3> few = std::span(points).subspan(i, std::min<size_t>(1 + i % 3, points.size() - i));
      const std::vector<OccupancyAnswer> expected = reference.occupancy(few);
      CHECK(small.occupancy(few) == expected);
      CHECK(everyOnGpu.occupancy(few) == expected);
    }
    const std::vector<QueryRay> cast{{chunk[3].origin, chunk[3].sample - chunk[3].origin, 5.0},
                                     {chunk[9].origin, chunk[9].origin - chunk[9].sample, 2.0}};
    for (bool unknownBlocks : {false, true}) {
      const std::vector<RayHit> expected = reference.raycast(cast, {.unknownBlocks = unknownBlocks});
      CHECK(small.raycast(cast, {.unknownBlocks = unknownBlocks}) == expected);
      CHECK(everyOnGpu.raycast(cast, {.unknownBlocks = unknownBlocks}) == expected);
    }
    const QueryBox box{points[part] - glm::dvec3(0.2), points[part] + glm::dvec3(0.2)};
    const std::vector<VoxelCoord> freeVoxels = reference.voxelsInBox(box, VoxelClass::Free).voxels;
    CHECK(small.voxelsInBox(box, VoxelClass::Free).voxels == freeVoxels);
    CHECK(everyOnGpu.voxelsInBox(box, VoxelClass::Free).voxels == freeVoxels);
  }
  ClearanceOptions clearance;
  clearance.range = 1.0;
  for (Mapper* m : {&small, &everyOnGpu, &reference}) m->computeClearance(clearance);
  const std::span<const glm::dvec3> few = std::span(points).first(5);
  CHECK(small.clearance(few) == reference.clearance(few));
  CHECK(everyOnGpu.clearance(few) == reference.clearance(few));
}

TEST_CASE("A Mapper's queries into the caller's span equal the vector answers on either path; a short span is refused",
          "[api][mapper][query][gpu][query-span]") {
  const std::vector<Ray> rays = smallLidarRun(1);
  Context ctx(vt::gpu().scheduler);
  Mapper mapper(ctx);
  mapper.integrate(rays);
  ClearanceOptions clearance;
  clearance.range = 1.0;
  mapper.computeClearance(clearance);
  const std::vector<glm::dvec3> points = pointsAround(mapper.map(), 3000, 5);
  std::vector<QueryRay> queryRays;
  for (size_t i = 0; i < rays.size(); i += 211) queryRays.push_back({rays[i].origin, rays[i].sample - rays[i].origin, 5.0});
  // The whole batch on the GPU, one item on the CPU (run.hostQueryVoxels).
  for (size_t n : {points.size(), size_t(1)}) {
    const std::span<const glm::dvec3> asked = std::span(points).first(n);
    const std::span<const QueryRay> cast = std::span(queryRays).first(std::min(n, queryRays.size()));
    std::vector<OccupancyAnswer> answers(n);
    mapper.occupancy(asked, std::span<OccupancyAnswer>(answers));
    CHECK(answers == cpuOccupancy(mapper.map(), asked));
    std::vector<ClearanceSample> samples(n);
    mapper.clearance(asked, std::span<ClearanceSample>(samples));
    CHECK(samples == cpuClearance(mapper.map(), asked));
    std::vector<RayHit> hits(cast.size());
    mapper.raycast(cast, std::span<RayHit>(hits), {.unknownBlocks = true});
    CHECK(hits == cpuRaycast(mapper.map(), cast, {.unknownBlocks = true}));
  }
  std::vector<OccupancyAnswer> shortAnswers(points.size() - 1);
  CHECK_THROWS_WITH(mapper.occupancy(points, std::span<OccupancyAnswer>(shortAnswers)),
                    Catch::Contains("Mapper::occupancy: 3000 points but the answer span holds 2999"));
  std::vector<RayHit> noHits;
  CHECK_THROWS_AS(mapper.raycast(queryRays, std::span<RayHit>(noHits)), QueryOutputError);
  std::vector<ClearanceSample> oneSample(1);
  CHECK_THROWS_AS(mapper.clearance(std::span(points).first(2), std::span<ClearanceSample>(oneSample)), QueryOutputError);
}

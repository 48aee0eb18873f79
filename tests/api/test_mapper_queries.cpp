// The Mapper's batched queries (voxen/query through engine/api): the GPU's answers equal the
// CPU references' on the Mapper's own map, and after more rays or a clearance the queries
// read the changed map, never the one they loaded first.
#include <catch2/catch.hpp>

#include <random>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/context.hpp"
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

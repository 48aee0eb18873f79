// Answers that say what is known (issue 38, item 3): every occupancy answer, ray hit and
// clearance sample carries a QueryStatus, on the GPU and on the CPU reference alike, so a
// caller tells "free" and "no obstacle within range" from "never observed" and "not in the
// map". Hand-made map: region (0,0,0) of 8^3 voxels at 0.1 m with one occupied voxel, a row
// of free ones and the rest unobserved; region (1,0,0) all free; nothing else.
#include <catch2/catch.hpp>

#include <cmath>

#include "support/gpu_fixture.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace {

using namespace voxen;

constexpr double kRes = 0.1;

OccupancyMap handMap() {
  OccupancyModel model;
  model.resolution = kRes;
  model.regionSize = 8;
  OccupancyMap map(model);
  Region& near = map.region({0, 0, 0});
  for (int x = 0; x < 6; ++x) near.occupancy()[map.localIndex({x, 2, 2})] = -1.0f;  // free row along x
  near.occupancy()[map.localIndex({6, 2, 2})] = 2.0f;                               // the obstacle at its end
  for (float& v : map.region({1, 0, 0}).occupancy()) v = -1.0f;                    // all free
  return map;
}

glm::dvec3 centre(int x, int y, int z) { return {(x + 0.5) * kRes, (y + 0.5) * kRes, (z + 0.5) * kRes}; }

}  // namespace

TEST_CASE("Occupancy answers say observed, unobserved or outside the map", "[query][status][gpu]") {
  const OccupancyMap map = handMap();
  const std::vector<glm::dvec3> points{centre(6, 2, 2), centre(1, 2, 2), centre(4, 5, 5), centre(12, 3, 3),
                                       centre(-3, 2, 2), centre(2, 20, 2)};
  const std::vector<OccupancyAnswer> cpu = cpuOccupancy(map, points);
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<OccupancyAnswer> gpu = queries.occupancy(points);
  CHECK(gpu == cpu);
  const QueryStatus expected[] = {QueryStatus::Observed,   QueryStatus::Observed,   QueryStatus::Unobserved,
                                  QueryStatus::Observed,   QueryStatus::OutsideMap, QueryStatus::OutsideMap};
  for (size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    CHECK(gpu[i].status == expected[i]);
  }
  CHECK(gpu[0].voxelClass == VoxelClass::Occupied);
  CHECK(gpu[2].voxelClass == VoxelClass::Unobserved);
  CHECK(gpu[4].value == kUnobserved);  // outside: the same value and class as unobserved, told apart by status
  CHECK(gpu[4].voxelClass == VoxelClass::Unobserved);
}

TEST_CASE("Ray answers say what stopped them, or why nothing did", "[query][status][gpu]") {
  const OccupancyMap map = handMap();
  const std::vector<QueryRay> rays{
      {centre(0, 2, 2), {1, 0, 0}, 1.0},   // along the free row into the obstacle
      {centre(0, 2, 2), {1, 0, 0}, 0.3},   // stops short of it
      {centre(0, 2, 2), {0, 1, 0}, 0.5},   // into unobserved voxels
      {centre(-5, 2, 2), {1, 0, 0}, 0.2},  // starts outside the map, ends outside
      {centre(9, 2, 2), {1, 0, 0}, 0.5},   // in the free region
  };
  for (const bool unknownBlocks : {false, true}) {
    INFO("unknownBlocks " << unknownBlocks);
    const RaycastOptions options{.unknownBlocks = unknownBlocks};
    const std::vector<RayHit> cpu = cpuRaycast(map, rays, options);
    GpuQueries queries(vt::gpu().scheduler, map);
    const std::vector<RayHit> gpu = queries.raycast(rays, options);
    CHECK(gpu == cpu);
    CHECK(gpu[0].hit);
    CHECK(gpu[0].status == QueryStatus::Observed);
    CHECK_FALSE(gpu[1].hit);
    CHECK(gpu[1].status == QueryStatus::OutOfRange);
    CHECK(gpu[2].hit == unknownBlocks);
    CHECK(gpu[2].status == (unknownBlocks ? QueryStatus::Unobserved : QueryStatus::OutOfRange));
    CHECK(gpu[3].status == (unknownBlocks ? QueryStatus::Unobserved : QueryStatus::OutsideMap));
    CHECK_FALSE(gpu[4].hit);
    CHECK(gpu[4].status == QueryStatus::OutOfRange);
  }
}

TEST_CASE("Clearance samples say out of range or outside the map, with an undefined gradient", "[query][status][gpu]") {
  OccupancyMap map = handMap();
  computeClearanceCpu(map, {.range = 0.15});
  const std::vector<glm::dvec3> points{
      centre(5, 2, 2) + glm::dvec3(0.02, 0.03, 0.01),  // beside the obstacle: a distance
      centre(1, 5, 5) + glm::dvec3(0.02, 0.03, 0.01),  // unobserved voxels are obstacles by default: a distance
      centre(12, 4, 4) + glm::dvec3(0.02, 0.03, 0.01), // the free region, far from any obstacle: none in range
      centre(0, 2, 2) - glm::dvec3(0.07, 0.0, 0.0),    // half the cell in a region the map does not hold
  };
  const std::vector<ClearanceSample> cpu = cpuClearance(map, points);
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<ClearanceSample> gpu = queries.clearance(points);
  CHECK(gpu == cpu);  // bits, NaN gradients included
  CHECK(gpu[0].status == QueryStatus::Observed);
  CHECK(gpu[0].clearance >= 0.0f);
  CHECK(gpu[1].status == QueryStatus::Observed);
  CHECK(gpu[2].status == QueryStatus::OutOfRange);
  CHECK(gpu[2].clearance == -1.0f);
  CHECK(std::isnan(gpu[2].gradient.x));
  CHECK(std::isnan(gpu[2].gradient.z));
  CHECK(gpu[3].status == QueryStatus::OutsideMap);
  CHECK(std::isnan(gpu[3].gradient.y));
  CHECK(std::string(queryStatusName(gpu[3].status)) == "outside_map");
  CHECK(std::string(queryStatusName(QueryStatus::OutOfRange)) == "out_of_range");
}

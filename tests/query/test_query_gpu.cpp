// The batched GPU queries against their CPU references (bit for bit: every field equal) and
// against values worked out by hand, on a hand-built map with small regions, including
// maps larger than the query cache (queried in chunks).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <span>

#include "support/gpu_fixture.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/map/region_cache.hpp"

namespace {

using namespace voxen;

constexpr double kRes = 0.25;

double uni(vt::Rng& rng, double lo, double hi) { return lo + (hi - lo) * double(rng.next() >> 11) * 0x1p-53; }

OccupancyModel smallModel() {
  OccupancyModel model;
  model.resolution = kRes;
  model.regionSize = 8;
  return model;
}

void setValue(OccupancyMap& map, const VoxelCoord& v, float value) {
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
}

// Regions in a 4 x 4 x 2 block from (-2,-2,-1) (the block (1,1,0) left out: a hole in the
// map), every voxel random: a third unobserved, a third free, a third occupied; plus
// a wall of occupied voxels at x = 20 and a free corridor at y = 3.
OccupancyMap randomMap(uint64_t seed) {
  OccupancyMap map(smallModel());
  vt::Rng rng(seed);
  for (int rx = -2; rx < 2; ++rx)
    for (int ry = -2; ry < 2; ++ry)
      for (int rz = -1; rz < 1; ++rz) {
        if (rx == 1 && ry == 1 && rz == 0) continue;
        Region& region = map.region({rx, ry, rz});
        for (float& v : region.occupancy()) {
          const uint64_t r = rng.next() % 9;
          v = r < 3 ? kUnobserved : r < 6 ? -1.5f + 0.1f * float(r) : 0.2f + 0.5f * float(r - 6);
        }
      }
  return map;
}

template <class T>
void checkEqual(const std::vector<T>& gpu, const std::vector<T>& cpu) {
  REQUIRE(gpu.size() == cpu.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < gpu.size(); ++i)
    if (!(gpu[i] == cpu[i])) ++mismatches;
  CHECK(mismatches == 0);
}

std::vector<glm::dvec3> randomPoints(vt::Rng& rng, size_t n) {
  std::vector<glm::dvec3> points(n);
  for (auto& p : points)
    p = {uni(rng, -6.0, 6.0), uni(rng, -6.0, 6.0), uni(rng, -3.0, 3.0)};
  return points;
}

std::vector<QueryRay> awkwardRays(vt::Rng& rng) {
  std::vector<QueryRay> rays;
  const double face = 8 * kRes;  // a region edge: 2 m
  for (int i = 0; i < 400; ++i)
    rays.push_back({{uni(rng, -6.0, 6.0), uni(rng, -6.0, 6.0), uni(rng, -3.0, 3.0)},
                    {uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0)},
                    uni(rng, 0.0, 8.0)});
  // Origins on region faces, edges and corners, along and across them.
  for (double x : {-face, 0.0, face})
    for (double y : {-face, 0.0, face})
      for (const glm::dvec3 d : {glm::dvec3(1, 0, 0), glm::dvec3(0, -1, 0), glm::dvec3(0, 0, 1), glm::dvec3(1, 1, 1),
                                 glm::dvec3(-1, 0.5, -0.25)}) {
        rays.push_back({{x, y, 0.0}, d, 6.0});
        rays.push_back({{x, y + 0.3, -face}, d, 6.0});
      }
  // From outside the map, and through the missing region (unknown space).
  rays.push_back({{-30.0, 0.1, 0.1}, {1.0, 0.0, 0.0}, 60.0});
  rays.push_back({{0.1, 0.1, -30.0}, {0.0, 0.0, 2.0}, 60.0});
  rays.push_back({{3.0, 3.0, 1.0}, {0.3, 0.2, 0.1}, 5.0});
  rays.push_back({{1.0, 1.0, 0.5}, {-1.0, 0.0, 0.0}, 0.0});  // range 0: the origin's voxel only
  return rays;
}

}  // namespace

TEST_CASE("GPU occupancy point queries equal the CPU reference and the voxels set", "[query][gpu]") {
  OccupancyMap map = randomMap(11);
  setValue(map, {3, -4, 1}, 1.25f);
  setValue(map, {-7, 2, -2}, -0.75f);
  setValue(map, {0, 0, 0}, kUnobserved);
  vt::Rng rng(3);
  std::vector<glm::dvec3> points = randomPoints(rng, 5000);
  points.push_back({3.5 * kRes, -3.5 * kRes, 1.5 * kRes});  // inside voxel (3,-4,1)
  points.push_back({-7 * kRes, 2 * kRes, -2 * kRes});        // on voxel (-7,2,-2)'s lower corner
  points.push_back({0.01, 0.01, 0.01});
  points.push_back({1000.0, 0.0, 0.0});                      // outside the map
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<OccupancyAnswer> gpu = queries.occupancy(points);
  checkEqual(gpu, cpuOccupancy(map, points));
  const size_t n = points.size();
  CHECK(gpu[n - 4].value == 1.25f);
  CHECK(gpu[n - 4].voxelClass == VoxelClass::Occupied);  // above the threshold (0 log-odds)
  CHECK(gpu[n - 3].value == -0.75f);
  CHECK(gpu[n - 3].voxelClass == VoxelClass::Free);
  CHECK(gpu[n - 2].voxelClass == VoxelClass::Unobserved);
  CHECK(gpu[n - 1].voxelClass == VoxelClass::Unobserved);
  CHECK(std::isinf(gpu[n - 1].value));
}

TEST_CASE("Point queries refuse non-finite and far points, naming the item", "[query][gpu]") {
  OccupancyMap map = randomMap(1);
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<glm::dvec3> points{{0, 0, 0}, {NAN, 0, 0}};
  try {
    queries.occupancy(points);
    FAIL("no error");
  } catch (const QueryInputError& e) {
    CHECK(e.index() == 1);
    CHECK(std::string(e.what()).find("non-finite") != std::string::npos);
  }
  const std::vector<glm::dvec3> far{{1e12, 0, 0}};
  CHECK_THROWS_AS(cpuOccupancy(map, far), QueryInputError);
}

TEST_CASE("GPU ray casts equal the CPU reference on faces, edges, corners, outside and unknown space", "[query][gpu]") {
  OccupancyMap map = randomMap(5);
  vt::Rng rng(9);
  const std::vector<QueryRay> rays = awkwardRays(rng);
  GpuQueries queries(vt::gpu().scheduler, map);
  for (bool unknownBlocks : {false, true}) {
    INFO("unknown blocks " << unknownBlocks);
    const std::vector<RayHit> gpu = queries.raycast(rays, {unknownBlocks});
    const std::vector<RayHit> cpu = cpuRaycast(map, rays, {unknownBlocks});
    checkEqual(gpu, cpu);
    size_t hits = 0;
    for (const RayHit& h : gpu) hits += h.hit;
    CHECK(hits > rays.size() / 4);
    CHECK(hits < rays.size());
  }
}

TEST_CASE("Ray casts by hand: entry point, distance 0 inside an obstacle, range 0, zero direction", "[query][gpu]") {
  OccupancyMap map(smallModel());
  for (int x = -4; x < 40; ++x) setValue(map, {x, 1, 1}, -1.0f);  // a free corridor
  setValue(map, {10, 1, 1}, 2.0f);
  setValue(map, {-2, 1, 1}, 2.0f);
  GpuQueries queries(vt::gpu().scheduler, map);
  const glm::dvec3 o{1.1 * kRes, 1.5 * kRes, 1.5 * kRes};
  const std::vector<QueryRay> rays{
      {o, {2.0, 0.0, 0.0}, 5.0},            // enters voxel 10 at x = 2.5 m: 2.225 m on
      {o, {1.0, 0.0, 0.0}, 2.0},            // ends short of it
      {o, {-3.0, 0.0, 0.0}, 5.0},           // voxel -2's upper face at x = -0.25 m
      {{10.5 * kRes, o.y, o.z}, {0.0, 1.0, 0.0}, 1.0},  // starts inside the obstacle
      {{10.5 * kRes, o.y, o.z}, {0.0, 1.0, 0.0}, 0.0},  // range 0 inside it
      {o, {1.0, 0.0, 0.0}, 0.0},            // range 0 in free space
      {o, {0.0, 1.0, 0.0}, 1.0},            // into unknown space
  };
  for (bool unknownBlocks : {false, true}) {
    const std::vector<RayHit> hits = queries.raycast(rays, {unknownBlocks});
    checkEqual(hits, cpuRaycast(map, rays, {unknownBlocks}));
    REQUIRE(hits[0].hit);
    CHECK(hits[0].voxel == VoxelCoord{10, 1, 1});
    CHECK(hits[0].distance == Approx(2.5 - 1.1 * kRes).epsilon(1e-6));
    CHECK(hits[0].point.x == Approx(2.5).epsilon(1e-6));
    CHECK(hits[0].voxelClass == VoxelClass::Occupied);
    CHECK(!hits[1].hit);
    REQUIRE(hits[2].hit);
    CHECK(hits[2].voxel == VoxelCoord{-2, 1, 1});
    CHECK(hits[2].point.x == Approx(-0.25).epsilon(1e-6));
    for (int i : {3, 4}) {
      REQUIRE(hits[i].hit);
      CHECK(hits[i].distance == 0.0);
      CHECK(hits[i].point == rays[i].origin);
    }
    CHECK(!hits[5].hit);
    CHECK(hits[6].hit == unknownBlocks);
    if (unknownBlocks) {
      CHECK(hits[6].voxel == VoxelCoord{1, 2, 1});
      CHECK(hits[6].voxelClass == VoxelClass::Unobserved);
      CHECK(hits[6].distance == Approx(0.5 * kRes).epsilon(1e-6));
    }
  }
  const std::vector<QueryRay> bad{{o, {1, 0, 0}, 1.0}, {o, {0, 0, 0}, 1.0}};
  try {
    queries.raycast(bad);
    FAIL("no error");
  } catch (const QueryInputError& e) {
    CHECK(e.index() == 1);
    CHECK(std::string(e.what()).find("direction is zero") != std::string::npos);
  }
  CHECK_THROWS_AS(cpuRaycast(map, bad), QueryInputError);
  const std::vector<QueryRay> negative{{o, {1, 0, 0}, -1.0}};
  CHECK_THROWS_AS(queries.raycast(negative), QueryInputError);
}

TEST_CASE("Long ray casts split into segments find the same first hit as one walk", "[query][gpu]") {
  // A free block of 64 x 32 x 16 voxels with 1% of them occupied, walked by rays of up to
  // 200 faces cut into segments of 7: most hits lie segments past the first.
  OccupancyMap map(smallModel());
  vt::Rng rng(4);
  for (int rx = 0; rx < 8; ++rx)
    for (int ry = 0; ry < 4; ++ry)
      for (int rz = 0; rz < 2; ++rz)
        for (float& v : map.region({rx, ry, rz}).occupancy()) v = rng.next() % 100 == 0 ? 1.0f : -1.0f;
  QueryOptions options;
  options.maxCrossingsPerSegment = 7;
  GpuQueries queries(vt::gpu().scheduler, map, options);
  std::vector<QueryRay> rays;
  for (int i = 0; i < 2000; ++i)
    rays.push_back({{uni(rng, 0.0, 16.0), uni(rng, 0.0, 8.0), uni(rng, 0.0, 4.0)},
                    {uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0)}, uni(rng, 0.0, 20.0)});
  rays.push_back({{0.1, 0.1, 0.1}, {16.0, 8.0, 4.0}, 1000.0});  // the block's diagonal and far past it
  for (bool unknownBlocks : {false, true}) {
    const std::vector<RayHit> gpu = queries.raycast(rays, {unknownBlocks});
    checkEqual(gpu, cpuRaycast(map, rays, {unknownBlocks}));
    size_t hits = 0, far = 0;
    for (const RayHit& h : gpu) hits += h.hit, far += h.hit && h.distance > 7 * kRes;
    CHECK(hits > rays.size() / 10);
    CHECK(far > rays.size() / 40);  // beyond the first segment of every ray
  }
}

TEST_CASE("A ray of 100,000 voxels finds its hit past lavapipe's loop cap", "[query][gpu]") {
  // 65,535 loop iterations per invocation, then silence: the walk must be split for the
  // hit at voxel 99,990 to be found at all.
  OccupancyMap map(smallModel());
  for (int rx = 0; rx < 12500; ++rx)
    for (float& v : map.region({rx, 0, 0}).occupancy()) v = -1.0f;
  setValue(map, {99990, 3, 3}, 2.0f);
  GpuQueries queries(vt::gpu().scheduler, map, QueryOptions{.maxCrossingsPerSegment = 8192});
  const std::vector<QueryRay> rays{{{0.5 * kRes, 3.5 * kRes, 3.5 * kRes}, {1.0, 0.0, 0.0}, 26000.0}};
  const std::vector<RayHit> gpu = queries.raycast(rays);
  checkEqual(gpu, cpuRaycast(map, rays));
  REQUIRE(gpu[0].hit);
  CHECK(gpu[0].voxel == VoxelCoord{99990, 3, 3});
  CHECK(gpu[0].distance == Approx(99990 * kRes - 0.5 * kRes).epsilon(1e-6));
}

TEST_CASE("GPU clearance samples equal the CPU reference; by hand on a linear field; -1 next to none", "[query][gpu]") {
  OccupancyMap map = randomMap(21);
  ClearanceOptions clearance;
  clearance.range = 1.0;
  computeClearanceCpu(map, clearance);
  vt::Rng rng(8);
  std::vector<glm::dvec3> points = randomPoints(rng, 4000);
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<ClearanceSample> gpu = queries.clearance(points);
  checkEqual(gpu, cpuClearance(map, points));
  size_t valued = 0;
  for (const ClearanceSample& s : gpu) valued += s.clearance >= 0.0f;
  CHECK(valued > 100);

  // A linear field c = 0.5 + 0.25 x + 0.125 y - 0.0625 z (metres, voxel centres), written
  // straight into the layer: the interpolation reproduces it and its gradient.
  OccupancyMap linear(smallModel());
  linear.addLayer(clearanceLayer());
  for (int rx = 0; rx < 2; ++rx)
    for (int ry = 0; ry < 2; ++ry)
      for (int rz = 0; rz < 2; ++rz) {
        Region& region = linear.region({rx, ry, rz});
        auto values = region.values<float>(clearanceLayer());
        for (uint32_t i = 0; i < values.size(); ++i) {
          const glm::dvec3 c = linear.voxelCentre(linear.voxelOf(region.key, i));
          values[i] = float(0.5 + 0.25 * c.x + 0.125 * c.y - 0.0625 * c.z + 0.5);
        }
      }
  // One voxel with no obstacle in range spoils the samples around it.
  linear.region({0, 0, 0}).values<float>(clearanceLayer())[linear.localIndex({4, 4, 4})] = kNoObstacleInRange;
  GpuQueries linearQueries(vt::gpu().scheduler, linear);
  const std::vector<glm::dvec3> probes{{1.3, 2.2, 0.9}, {0.625, 0.875, 1.125}, {4.4 * kRes, 4.6 * kRes, 4.5 * kRes},
                                       {-0.01, 1.0, 1.0}};
  const std::vector<ClearanceSample> s = linearQueries.clearance(probes);
  checkEqual(s, cpuClearance(linear, probes));
  for (int i : {0, 1}) {
    const glm::dvec3 p = probes[i];
    CHECK(s[i].clearance == Approx(1.0 + 0.25 * p.x + 0.125 * p.y - 0.0625 * p.z).epsilon(1e-5));
    CHECK(s[i].gradient.x == Approx(0.25).epsilon(1e-4));
    CHECK(s[i].gradient.y == Approx(0.125).epsilon(1e-4));
    CHECK(s[i].gradient.z == Approx(-0.0625).epsilon(1e-4));
  }
  CHECK(s[0].status == QueryStatus::Observed);
  CHECK(s[2].clearance == -1.0f);  // a corner is the voxel without a value
  CHECK(std::isnan(s[2].gradient.x));  // undefined, not a made-up zero
  CHECK(s[2].status == QueryStatus::OutOfRange);
  CHECK(s[3].clearance == -1.0f);  // corners in a region the map does not hold
  CHECK(s[3].status == QueryStatus::OutsideMap);
  OccupancyMap plain = randomMap(2);
  GpuQueries plainQueries(vt::gpu().scheduler, plain);
  CHECK_THROWS_WITH(plainQueries.clearance(probes), Catch::Contains("no clearance layer"));
}

TEST_CASE("GPU box queries count and list the CPU reference's voxels of each class", "[query][gpu]") {
  OccupancyMap map = randomMap(31);
  GpuQueries queries(vt::gpu().scheduler, map);
  const QueryBox box{{-3.1, -2.2, -1.9}, {2.7, 4.6, 0.4}};  // over the map's edge and its hole
  for (VoxelClass c : {VoxelClass::Unobserved, VoxelClass::Free, VoxelClass::Occupied}) {
    const BoxVoxels gpu = queries.voxelsInBox(box, c);
    const BoxVoxels cpu = cpuVoxelsInBox(map, box, c);
    CHECK(gpu.count == cpu.count);
    CHECK(gpu.voxels == cpu.voxels);
    CHECK(gpu.count > 0);
  }
  // By hand: a box of one voxel, and a box inside the hole (all unobserved).
  setValue(map, {2, 3, -1}, 3.0f);
  queries.refresh();
  const QueryBox one{{2.1 * kRes, 3.9 * kRes, -0.5 * kRes}, {2.2 * kRes, 3.95 * kRes, -0.4 * kRes}};
  CHECK(queries.voxelsInBox(one, VoxelClass::Occupied).voxels == std::vector<VoxelCoord>{{2, 3, -1}});
  const QueryBox hole{{2.0, 2.0, 0.0}, {3.9, 3.9, 1.9}};
  CHECK(queries.voxelsInBox(hole, VoxelClass::Unobserved).count == 512);
  const QueryBox inverted{{1.0, 0.0, 0.0}, {0.0, 1.0, 1.0}};
  CHECK_THROWS_AS(queries.voxelsInBox(inverted, VoxelClass::Free), QueryInputError);
}

TEST_CASE("Queries on a map larger than the cache run in chunks with the same answers", "[query][gpu]") {
  OccupancyMap map = randomMap(41);
  ClearanceOptions clearance;
  clearance.range = 0.75;
  computeClearanceCpu(map, clearance);
  QueryOptions options;
  options.cacheBytes = 3 * RegionCache::bytesPerRegion(map);
  options.maxCrossingsPerSegment = 16;
  GpuQueries queries(vt::gpu().scheduler, map, options);
  CHECK(queries.regionsPerChunk() == 3);
  CHECK(queries.chunkCount() == 11);  // 31 regions
  vt::Rng rng(12);
  const std::vector<glm::dvec3> points = randomPoints(rng, 3000);
  checkEqual(queries.occupancy(points), cpuOccupancy(map, points));
  checkEqual(queries.clearance(points), cpuClearance(map, points));
  const std::vector<QueryRay> rays = awkwardRays(rng);
  for (bool unknownBlocks : {false, true}) checkEqual(queries.raycast(rays, {unknownBlocks}), cpuRaycast(map, rays, {unknownBlocks}));
  const QueryBox box{{-3.1, -2.2, -1.9}, {2.7, 4.6, 0.4}};
  for (VoxelClass c : {VoxelClass::Unobserved, VoxelClass::Free, VoxelClass::Occupied})
    CHECK(queries.voxelsInBox(box, c).voxels == cpuVoxelsInBox(map, box, c).voxels);
}

TEST_CASE("Queries on a sparse map (regions far apart: a hash table, not a grid) equal the CPU reference", "[query][gpu]") {
  OccupancyMap map(smallModel());
  vt::Rng rng(51);
  const std::vector<RegionKey> keys{{0, 0, 0}, {1, 0, 0}, {6000, 6000, 1}, {-6000, 10, -3}};
  for (const RegionKey& key : keys)
    for (float& v : map.region(key).occupancy()) v = rng.next() % 3 == 0 ? kUnobserved : rng.next() % 2 ? -1.0f : 1.0f;
  for (uint64_t cacheRegions : {4u, 1u}) {
    QueryOptions options;
    options.cacheBytes = cacheRegions * RegionCache::bytesPerRegion(map);
    GpuQueries queries(vt::gpu().scheduler, map, options);
    CHECK(queries.chunkCount() == 4 / cacheRegions);
    std::vector<glm::dvec3> points;
    std::vector<QueryRay> rays;
    for (const RegionKey& key : keys) {
      const glm::dvec3 corner = glm::dvec3(key.x, key.y, key.z) * (8 * kRes);
      for (int i = 0; i < 300; ++i) {
        const glm::dvec3 p = corner + glm::dvec3(uni(rng, -1.0, 3.0), uni(rng, -1.0, 3.0), uni(rng, -1.0, 3.0));
        points.push_back(p);
        rays.push_back({p, {uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0), uni(rng, -1.0, 1.0)}, uni(rng, 0.0, 4.0)});
      }
    }
    checkEqual(queries.occupancy(points), cpuOccupancy(map, points));
    for (bool unknownBlocks : {false, true}) checkEqual(queries.raycast(rays, {unknownBlocks}), cpuRaycast(map, rays, {unknownBlocks}));
    const QueryBox box{{-0.6, -0.3, -0.2}, {4.1, 2.2, 2.3}};
    for (VoxelClass c : {VoxelClass::Unobserved, VoxelClass::Free, VoxelClass::Occupied})
      CHECK(queries.voxelsInBox(box, c).voxels == cpuVoxelsInBox(map, box, c).voxels);
  }
}

TEST_CASE("Queries on an empty map: everything unknown, no hits unless unknown blocks, no voxels but unobserved", "[query][gpu]") {
  OccupancyMap map(smallModel());
  GpuQueries queries(vt::gpu().scheduler, map);
  const std::vector<glm::dvec3> points{{0.0, 0.0, 0.0}, {-3.3, 2.2, 1.1}};
  checkEqual(queries.occupancy(points), cpuOccupancy(map, points));
  CHECK(queries.occupancy(points)[1].voxelClass == VoxelClass::Unobserved);
  const std::vector<QueryRay> rays{{{0.1, 0.1, 0.1}, {1.0, 2.0, 3.0}, 4.0}};
  CHECK(!queries.raycast(rays)[0].hit);
  const std::vector<RayHit> blocked = queries.raycast(rays, {true});
  checkEqual(blocked, cpuRaycast(map, rays, {true}));
  CHECK(blocked[0].distance == 0.0);
  const QueryBox box{{0.0, 0.0, 0.0}, {0.6, 0.6, 0.6}};
  CHECK(queries.voxelsInBox(box, VoxelClass::Unobserved).count == 27);
  CHECK(queries.voxelsInBox(box, VoxelClass::Free).count == 0);
  CHECK(queries.occupancy({}).empty());
  CHECK(queries.raycast({}).empty());
}

TEST_CASE("Queries into the caller's span: the CPU reference's answers, over several rounds; a short span is refused",
          "[query][gpu][query-span]") {
  OccupancyMap map = randomMap(61);
  ClearanceOptions clearance;
  clearance.range = 1.0;
  computeClearanceCpu(map, clearance);
  GpuQueries queries(vt::gpu().scheduler, map);
  vt::Rng rng(17);
  // More than one round (1,048,576 points a round), so that a round's answers land at its
  // offset in the span while the next round is prepared.
  const std::vector<glm::dvec3> points = randomPoints(rng, (size_t(1) << 20) + 1234);
  const std::vector<QueryRay> rays = awkwardRays(rng);
  // Two elements more than the items, poisoned: the answers fill the first ones, the rest is
  // left as it was.
  const OccupancyAnswer poisonAnswer{-123.0f, VoxelClass::Free};
  const ClearanceSample poisonSample{-77.0f, glm::vec3(5.0f)};
  RayHit poisonHit;
  poisonHit.hit = true;
  poisonHit.distance = -9.0;

  std::vector<OccupancyAnswer> answers(points.size() + 2, poisonAnswer);
  queries.occupancy(points, std::span<OccupancyAnswer>(answers));
  const std::vector<OccupancyAnswer> cpuAnswers = cpuOccupancy(map, points);
  checkEqual(std::vector<OccupancyAnswer>(answers.begin(), answers.begin() + points.size()), cpuAnswers);
  CHECK(answers[points.size()] == poisonAnswer);
  CHECK(answers[points.size() + 1] == poisonAnswer);
  size_t classes[3] = {0, 0, 0};
  for (const OccupancyAnswer& a : cpuAnswers) ++classes[size_t(a.voxelClass)];
  CHECK((classes[0] > 1000 && classes[1] > 1000 && classes[2] > 1000));  // every class answered

  std::vector<ClearanceSample> samples(points.size() + 2, poisonSample);
  queries.clearance(points, std::span<ClearanceSample>(samples));
  checkEqual(std::vector<ClearanceSample>(samples.begin(), samples.begin() + points.size()), cpuClearance(map, points));
  CHECK(samples.back() == poisonSample);

  for (bool unknownBlocks : {false, true}) {
    // Poisoned too: a ray without a hit must overwrite the element with an empty answer.
    std::vector<RayHit> hits(rays.size() + 2, poisonHit);
    queries.raycast(rays, std::span<RayHit>(hits), {unknownBlocks});
    checkEqual(std::vector<RayHit>(hits.begin(), hits.begin() + rays.size()), cpuRaycast(map, rays, {unknownBlocks}));
    CHECK(hits.back() == poisonHit);
  }

  // A span with room for one answer less is refused before anything is written, naming the
  // query and both sizes.
  std::vector<OccupancyAnswer> shortAnswers(10, poisonAnswer);
  const std::span<const glm::dvec3> eleven = std::span(points).first(11);
  CHECK_THROWS_AS(queries.occupancy(eleven, std::span<OccupancyAnswer>(shortAnswers)), QueryOutputError);
  CHECK_THROWS_WITH(queries.occupancy(eleven, std::span<OccupancyAnswer>(shortAnswers)),
                    Catch::Contains("occupancy: 11 points but the answer span holds 10"));
  CHECK(std::all_of(shortAnswers.begin(), shortAnswers.end(), [&](const OccupancyAnswer& a) { return a == poisonAnswer; }));
  std::vector<ClearanceSample> shortSamples(10);
  CHECK_THROWS_WITH(queries.clearance(eleven, std::span<ClearanceSample>(shortSamples)),
                    Catch::Contains("clearance: 11 points but the answer span holds 10"));
  std::vector<RayHit> shortHits(rays.size() - 1);
  CHECK_THROWS_WITH(queries.raycast(rays, std::span<RayHit>(shortHits)),
                    Catch::Contains("raycast: " + std::to_string(rays.size()) + " rays but the answer span holds"));
  // Nothing asked, nothing needed.
  queries.occupancy({}, std::span<OccupancyAnswer>());
}

TEST_CASE("Ray casts prepared on several threads answer as the CPU reference, and a bad ray is named by its index",
          "[query][gpu][threads]") {
  // 30,000 rays: several preparing parts of 4,096 rays on any host with more than one core.
  OccupancyMap map = randomMap(5);
  vt::Rng rng(41);
  std::vector<QueryRay> rays;
  while (rays.size() < 30000) {
    const std::vector<QueryRay> more = awkwardRays(rng);
    rays.insert(rays.end(), more.begin(), more.end());
  }
  rays.resize(30000);
  GpuQueries queries(vt::gpu().scheduler, map);
  checkEqual(queries.raycast(rays, RaycastOptions{}), cpuRaycast(map, rays, RaycastOptions{}));
  // Bad rays in two parts: the first in input order is the one reported, as in order.
  rays[21000].direction = {0.0, 0.0, 0.0};
  rays[9000].origin.x = NAN;
  try {
    queries.raycast(rays, RaycastOptions{});
    FAIL("no error");
  } catch (const QueryInputError& e) {
    CHECK(e.index() == 9000);
  }
}

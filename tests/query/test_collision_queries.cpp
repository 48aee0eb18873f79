// The collision and distance queries for planners (voxen/query/collision_types.hpp): cases
// worked out by hand on a map with one occupied voxel, the unknown-space policies and
// statuses, bad input named by item, and the GPU against the CPU twins bit for bit on a
// lidar-built map, whole and in chunks of regions.
#include <catch2/catch.hpp>

#include <cmath>
#include <span>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace {

using namespace voxen;

double uni(vt::Rng& rng, double lo, double hi) { return lo + (hi - lo) * double(rng.next() >> 11) * 0x1p-53; }

void setValue(OccupancyMap& map, const VoxelCoord& v, float value) {
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
}

// Regions (-1..1)^3 of 8 voxels at 0.1 m, every voxel free, except the occupied voxel
// (5, 5, 5) (metres [0.5, 0.6]^3) and the unobserved voxel (-3, -3, -3).
OccupancyMap oneVoxelMap() {
  OccupancyModel model;
  model.resolution = 0.1;
  model.regionSize = 8;
  OccupancyMap map(model);
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        for (float& v : map.region({x, y, z}).occupancy()) v = -1.0f;
  setValue(map, {5, 5, 5}, 2.0f);
  setValue(map, {-3, -3, -3}, kUnobserved);
  return map;
}

template <class T>
void requireSame(const std::vector<T>& gpu, const std::vector<T>& cpu) {
  REQUIRE(gpu.size() == cpu.size());
  size_t mismatches = 0, first = SIZE_MAX;
  for (size_t i = 0; i < gpu.size(); ++i)
    if (!(gpu[i] == cpu[i])) {
      if (first == SIZE_MAX) first = i;
      ++mismatches;
    }
  INFO("first mismatch at item " << first);
  CHECK(mismatches == 0);
}

// Both twins, checked equal; the CPU's answers returned.
struct Twins {
  const OccupancyMap& map;
  GpuQueries gpu;
  explicit Twins(const OccupancyMap& m, QueryOptions options = {}) : map(m), gpu(vt::gpu().scheduler, m, options) {}
  std::vector<CollisionAnswer> spheres(std::vector<glm::dvec3> points, double r, UnknownSpace u = UnknownSpace::Occupied) {
    auto cpu = cpuSphereCollisions(map, points, r, u);
    requireSame(gpu.sphereCollisions(points, r, u), cpu);
    return cpu;
  }
  std::vector<CollisionAnswer> boxes(std::vector<BoxPose> poses, glm::dvec3 size, UnknownSpace u = UnknownSpace::Occupied) {
    auto cpu = cpuBoxCollisions(map, poses, size, u);
    requireSame(gpu.boxCollisions(poses, size, u), cpu);
    return cpu;
  }
  std::vector<PathAnswer> paths(std::vector<glm::dvec3> points, std::vector<uint64_t> offsets, double r,
                                UnknownSpace u = UnknownSpace::Occupied) {
    auto cpu = cpuPathCollisions(map, points, offsets, r, u);
    requireSame(gpu.pathCollisions(points, offsets, r, u), cpu);
    return cpu;
  }
  std::vector<NearestAnswer> nearest(std::vector<glm::dvec3> points, double range) {
    auto cpu = cpuNearestObstacles(map, points, range);
    requireSame(gpu.nearestObstacles(points, range), cpu);
    return cpu;
  }
};

}  // namespace

TEST_CASE("Sphere collisions by hand: just touching and just missing a voxel's face", "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  Twins twins(map);
  // The voxel's +x face is at x = 0.6 m; a sphere of 0.2 m centred 0.2 m beyond it touches.
  const auto a = twins.spheres({{0.8 - 1e-4, 0.55, 0.55}, {0.8 + 1e-4, 0.55, 0.55}, {0.55, 0.55, 0.55}, {0.3, 0.3, 0.3}}, 0.2);
  CHECK(a[0].collides);
  CHECK(a[0].status == QueryStatus::Observed);
  CHECK_FALSE(a[1].collides);
  CHECK(a[1].status == QueryStatus::Observed);
  CHECK(a[2].collides);  // centred inside it
  // (0.3, 0.3, 0.3) is sqrt(3) * 0.2 = 0.346 m from the voxel's corner (0.5, 0.5, 0.5).
  CHECK_FALSE(a[3].collides);
  CHECK(twins.spheres({{0.3, 0.3, 0.3}}, 0.35)[0].collides);
  // Radius 0 touches the voxel holding the centre only.
  CHECK(twins.spheres({{0.5999, 0.5, 0.5}}, 0.0)[0].collides);
  CHECK_FALSE(twins.spheres({{0.6001, 0.5, 0.5}}, 0.0)[0].collides);
}

TEST_CASE("Path collisions by hand: the third segment collides at a known t", "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  Twins twins(map);
  // Segment 2 runs along x at the voxel's centre height from x = 0 to 1 m: a sphere of
  // 0.05 m touches the face x = 0.5 m at x = 0.45 m, t = 0.45.
  const std::vector<glm::dvec3> points{{0.0, -0.5, 0.05}, {0.0, 0.0, 0.05}, {0.0, 0.55, 0.55}, {1.0, 0.55, 0.55},
                                       {1.0, 0.55, 0.05}};
  const auto a = twins.paths(points, {0, 5}, 0.05);
  REQUIRE(a[0].collides);
  CHECK(a[0].segment == 2);
  CHECK(a[0].t == Approx(0.45).margin(1e-5));
  CHECK(a[0].status == QueryStatus::Observed);
  // The same path with a smaller radius still hits on segment 2, later: x = 0.49 m.
  const auto b = twins.paths(points, {0, 5}, 0.01);
  CHECK(b[0].segment == 2);
  CHECK(b[0].t == Approx(0.49).margin(1e-5));
  // Starting inside the swept distance: t = 0. Two paths in one batch, the second free.
  const std::vector<glm::dvec3> two{{0.55, 0.55, 0.7}, {0.55, 0.55, 1.0}, {-0.5, -0.5, 0.2}, {-0.2, -0.5, 0.2}};
  const auto c = twins.paths(two, {0, 2, 4}, 0.15);
  CHECK(c[0].collides);
  CHECK(c[0].segment == 0);
  CHECK(c[0].t == 0.0f);
  CHECK_FALSE(c[1].collides);
  CHECK(c[1].segment == -1);
  CHECK(c[1].t == -1.0f);
  CHECK(c[1].status == QueryStatus::Observed);
  // Passing beside the voxel 0.11 m from its face with radius 0.1: free.
  const auto d = twins.paths({{0.0, 0.71, 0.55}, {1.0, 0.71, 0.55}}, {0, 2}, 0.1);
  CHECK_FALSE(d[0].collides);
}

TEST_CASE("Oriented boxes by hand: a yawed box misses at 0 degrees and hits at 45", "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  Twins twins(map);
  // 0.6 x 0.1 x 0.1 m centred at (0.3, 0.3): along x it spans y 0.25 .. 0.35 (the voxel
  // starts at y = 0.5); turned 45 degrees its end reaches (0.512, 0.512), inside the voxel.
  const double pi = 3.14159265358979323846;
  const auto a = twins.boxes({{{0.3, 0.3, 0.55}, 0.0}, {{0.3, 0.3, 0.55}, pi / 4}, {{0.3, 0.3, 0.55}, -pi / 4}},
                             {0.6, 0.1, 0.1});
  CHECK_FALSE(a[0].collides);
  CHECK(a[1].collides);
  CHECK_FALSE(a[2].collides);
  CHECK(a[1].status == QueryStatus::Observed);
  // Above the voxel in z: the z interval decides.
  CHECK_FALSE(twins.boxes({{{0.3, 0.3, 0.75}, pi / 4}}, {0.6, 0.1, 0.1})[0].collides);
  CHECK(twins.boxes({{{0.3, 0.3, 0.75}, pi / 4}}, {0.6, 0.1, 0.3})[0].collides);
}

TEST_CASE("Nearest obstacles by hand: distance, direction, signed inside, out of range, outside the map",
          "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  Twins twins(map);
  const auto a = twins.nearest({{0.05, 0.55, 0.55}, {0.52, 0.56, 0.55}, {-0.75, -0.75, -0.75}, {50, 50, 50}}, 0.6);
  CHECK(a[0].distance == Approx(0.5));
  CHECK(a[0].signedDistance == a[0].distance);
  CHECK(a[0].obstacle.x == Approx(0.55));
  CHECK(a[0].obstacle.y == Approx(0.55));
  CHECK(a[0].direction.x == Approx(1.0));
  CHECK(a[0].direction.y == Approx(0.0).margin(1e-12));
  CHECK(a[0].status == QueryStatus::Observed);
  // Inside the occupied voxel: 0.0316 m from its centre; the nearest voxel not occupied is
  // (4, 5, 5), centre (0.45, 0.55, 0.55), sqrt(0.07^2 + 0.01^2) m away.
  CHECK(a[1].distance == Approx(std::sqrt(0.03 * 0.03 + 0.01 * 0.01)));
  CHECK(a[1].signedDistance == Approx(-std::sqrt(0.07 * 0.07 + 0.01 * 0.01)));
  CHECK(a[2].distance == -1.0);
  CHECK(std::isinf(a[2].signedDistance));
  CHECK(std::isnan(a[2].direction.x));
  CHECK(a[2].status == QueryStatus::OutOfRange);
  CHECK(a[3].status == QueryStatus::OutsideMap);
  // Near the unobserved voxel (-3, -3, -3): an obstacle beyond it is flagged Unobserved.
  const auto b = twins.nearest({{-0.25, -0.25, -0.25}, {0.25, 0.25, 0.25}}, 1.5);
  CHECK(b[0].status == QueryStatus::Unobserved);
  CHECK(b[0].distance == Approx(std::sqrt(3.0) * 0.8));
  CHECK(b[1].status == QueryStatus::Observed);
}

TEST_CASE("Unknown space policies and statuses of the collision kinds", "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  Twins twins(map);
  // Only the unobserved voxel (-3, -3, -3) is touched; (50, 50, 50) is outside the map.
  const std::vector<glm::dvec3> points{{-0.25, -0.25, -0.25}, {50, 50, 50}, {-0.05, -0.05, -0.05}};
  const auto occ = twins.spheres(points, 0.01, UnknownSpace::Occupied);
  const auto fre = twins.spheres(points, 0.01, UnknownSpace::Free);
  const auto rep = twins.spheres(points, 0.01, UnknownSpace::Report);
  CHECK(occ[0].collides);
  CHECK_FALSE(fre[0].collides);
  CHECK_FALSE(rep[0].collides);
  for (const auto* a : {&occ, &fre, &rep}) {
    CHECK((*a)[0].status == QueryStatus::Unobserved);
    CHECK((*a)[1].status == QueryStatus::OutsideMap);
    CHECK((*a)[2].status == QueryStatus::Observed);
    CHECK_FALSE((*a)[2].collides);
  }
  CHECK(occ[1].collides);
  CHECK_FALSE(fre[1].collides);
  // A path through the unobserved voxel: it collides there only under Occupied.
  const std::vector<glm::dvec3> path{{-0.55, -0.25, -0.25}, {0.05, -0.25, -0.25}};
  const auto po = twins.paths(path, {0, 2}, 0.01, UnknownSpace::Occupied);
  CHECK(po[0].collides);
  CHECK(po[0].t == Approx((0.55 - 0.3 - 0.01) / 0.6).margin(1e-5));
  CHECK(po[0].status == QueryStatus::Unobserved);
  const auto pf = twins.paths(path, {0, 2}, 0.01, UnknownSpace::Report);
  CHECK_FALSE(pf[0].collides);
  CHECK(pf[0].status == QueryStatus::Unobserved);
  // A box over the unobserved voxel and the occupied one: Observed (an occupied voxel decides).
  const auto bx = twins.boxes({{{0.15, 0.15, 0.15}, 0.0}}, {1.0, 1.0, 1.0}, UnknownSpace::Free);
  CHECK(bx[0].collides);
  CHECK(bx[0].status == QueryStatus::Observed);
}

TEST_CASE("Collision queries refuse bad input, naming the item", "[query][collision]") {
  const OccupancyMap map = oneVoxelMap();
  GpuQueries gpu(vt::gpu().scheduler, map);
  const double nan = std::nan("");
  const std::vector<glm::dvec3> bad{{0, 0, 0}, {0, 0, 0}, {0, nan, 0}};
  auto index = [](auto&& call) -> size_t {
    try {
      call();
    } catch (const QueryInputError& e) {
      return e.index();
    }
    return SIZE_MAX;
  };
  CHECK(index([&] { gpu.sphereCollisions(bad, 0.1); }) == 2);
  CHECK(index([&] { cpuSphereCollisions(map, bad, 0.1); }) == 2);
  CHECK_THROWS_AS(gpu.sphereCollisions(std::vector<glm::dvec3>{{0, 0, 0}}, -0.1), QueryInputError);
  CHECK_THROWS_AS(cpuSphereCollisions(map, std::vector<glm::dvec3>{{0, 0, 0}}, nan), QueryInputError);
  CHECK_THROWS_AS(gpu.sphereCollisions(std::vector<glm::dvec3>{{0, 0, 0}}, 100.0), QueryInputError);
  CHECK(index([&] { gpu.nearestObstacles(bad, 0.5); }) == 2);
  CHECK_THROWS_AS(gpu.nearestObstacles(std::vector<glm::dvec3>{{0, 0, 0}}, -1.0), QueryInputError);
  // Paths: the second has one point; the third a non-finite point.
  const std::vector<glm::dvec3> pts{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}, {0, nan, 0}};
  CHECK(index([&] { gpu.pathCollisions(pts, std::vector<uint64_t>{0, 2, 3, 5}, 0.1); }) == 1);
  CHECK(index([&] { cpuPathCollisions(map, pts, std::vector<uint64_t>{0, 2, 3, 5}, 0.1); }) == 1);
  CHECK(index([&] { gpu.pathCollisions(pts, std::vector<uint64_t>{0, 2, 5}, 0.1); }) == 1);
  CHECK_THROWS_AS(gpu.pathCollisions(pts, std::vector<uint64_t>{0, 2}, 0.1), QueryInputError);
  try {
    cpuPathCollisions(map, pts, std::vector<uint64_t>{0, 2, 3, 5}, 0.1);
  } catch (const QueryInputError& e) {
    CHECK(std::string(e.what()).find("path 1 has 1 point") != std::string::npos);
  }
  // Boxes: a non-finite yaw, a negative size.
  CHECK(index([&] { gpu.boxCollisions(std::vector<BoxPose>{{{0, 0, 0}, 0.0}, {{0, 0, 0}, nan}}, {1, 1, 1}); }) == 1);
  CHECK_THROWS_AS(cpuBoxCollisions(map, std::vector<BoxPose>{{{0, 0, 0}, 0.0}}, {1, -1, 1}), QueryInputError);
}

TEST_CASE("Collision and nearest queries on a lidar-built map: the GPU equals the CPU twins bit for bit, whole and in chunks",
          "[query][collision][gpu]") {
  using namespace vt::occupancy;
  const Run run = runGpu(smallLidarRun(1), IntegrationOptions{});
  const OccupancyMap& map = run.map;
  REQUIRE(map.regions().size() > 4);
  // Items drawn over the box of the map's regions (and a little beyond: outside the map).
  RegionKey lo = map.regions().begin()->first, hi = lo;
  for (const auto& [key, region] : map.regions()) {
    lo = {std::min(lo.x, key.x), std::min(lo.y, key.y), std::min(lo.z, key.z)};
    hi = {std::max(hi.x, key.x), std::max(hi.y, key.y), std::max(hi.z, key.z)};
  }
  const double edge = map.model().resolution * map.regionSize();
  vt::Rng rng(38);
  auto point = [&] {
    return glm::dvec3(uni(rng, lo.x * edge - 1, (hi.x + 1) * edge + 1), uni(rng, lo.y * edge - 1, (hi.y + 1) * edge + 1),
                      uni(rng, lo.z * edge - 1, (hi.z + 1) * edge + 1));
  };
  std::vector<glm::dvec3> points(4000);
  for (auto& p : points) p = point();
  std::vector<BoxPose> poses(2000);
  for (auto& p : poses) p = {point(), uni(rng, -4.0, 4.0)};
  std::vector<glm::dvec3> pathPoints;
  std::vector<uint64_t> offsets{0};
  for (int i = 0; i < 300; ++i) {
    glm::dvec3 p = point();
    const int n = 2 + int(rng.next() % 6);
    for (int k = 0; k < n; ++k) {
      pathPoints.push_back(p);
      p += glm::dvec3(uni(rng, -2, 2), uni(rng, -2, 2), uni(rng, -0.5, 0.5));
    }
    offsets.push_back(pathPoints.size());
  }
  QueryOptions chunked;
  chunked.cacheBytes = RegionCache::bytesPerRegion(map) * 3;
  for (const QueryOptions& options : {QueryOptions{}, chunked}) {
    Twins twins(map, options);
    INFO("chunks " << twins.gpu.chunkCount());
    CHECK((options.cacheBytes == chunked.cacheBytes) == (twins.gpu.chunkCount() > 1));
    for (UnknownSpace u : {UnknownSpace::Occupied, UnknownSpace::Report}) {
      const auto s = twins.spheres(points, 0.3, u);
      const auto b = twins.boxes(poses, {0.8, 0.5, 0.4}, u);
      const auto p = twins.paths(pathPoints, offsets, 0.3, u);
      // The answers vary (a test that could not tell a broken twin from a working one would not).
      size_t hits = 0, free = 0, unobserved = 0;
      for (const auto& a : s) (a.collides ? hits : free)++, unobserved += a.status == QueryStatus::Unobserved;
      CHECK(hits > 0);
      CHECK(free > 0);
      CHECK(unobserved > 0);
      size_t pathHits = 0, laterSegments = 0;
      for (const auto& a : p) pathHits += a.collides, laterSegments += a.segment > 0;
      CHECK(pathHits > 0);
      CHECK(laterSegments > 0);
      (void)b;
    }
    const auto n = twins.nearest(points, 1.0);
    size_t found = 0, inside = 0;
    for (const auto& a : n) found += a.distance >= 0, inside += a.signedDistance < 0;
    CHECK(found > 0);
    CHECK(found < n.size());
  }
}

TEST_CASE("Nearest obstacles at the range's edge, at range 0 and with ties: the GPU's sorted walk equals the shells",
          "[query][collision][nearest]") {
  OccupancyMap map = oneVoxelMap();
  // A second occupied voxel two voxels along x: centres 0.55 and 0.75 m, a tie between them
  // at x = 0.65 m goes to the lower offset code (z, y, x order): the one at 0.55.
  setValue(map, {7, 5, 5}, 2.0f);
  Twins twins(map);
  const auto tie = twins.nearest({{0.65, 0.55, 0.55}}, 0.5);
  CHECK(tie[0].obstacle.x == Approx(0.55));
  CHECK(tie[0].distance == Approx(0.1));
  // The voxel centre 0.3 m below the point: found within 0.31 m, not within 0.29 m.
  CHECK(twins.nearest({{0.55, 0.55, 0.25}}, 0.31)[0].distance == Approx(0.3));
  CHECK(twins.nearest({{0.55, 0.55, 0.25}}, 0.29)[0].status == QueryStatus::OutOfRange);
  // Every range from 0 (only the point's own voxel, and only at its centre) to 3 m, over a
  // grid of points around both obstacles and the unobserved voxel, some inside obstacles.
  std::vector<glm::dvec3> points;
  for (double x = -0.42; x < 1.2; x += 0.07)
    for (double y = -0.38; y < 1.0; y += 0.09)
      for (double z = -0.35; z < 1.0; z += 0.11) points.push_back({x, y, z});
  points.push_back({0.55, 0.55, 0.55});  // the centre of an obstacle: distance 0 at range 0
  for (double range : {0.0, 0.05, 0.1, 0.15, 0.2999, 0.3, 0.45, 1.0, 3.0}) {
    INFO("range " << range);
    const auto a = twins.nearest(points, range);
    size_t found = 0, inside = 0;
    for (const auto& n : a) found += n.distance >= 0.0, inside += n.signedDistance < 0.0;
    if (range >= 0.3) CHECK(found > 0);
    if (range >= 3.0) CHECK(found == a.size());
    // At range 0 only the centre finds its own voxel, and no voxel outside it is in range.
    if (range > 0.0) CHECK(inside > 0);
    CHECK(a.back().distance == 0.0);
  }
}

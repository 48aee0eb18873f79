// The swept-sphere path queries skip work (collision_types.hpp keeps the semantics): the
// pieces are disjoint slabs, a segment's touch starts are computed only for a path's first
// colliding segment, later segments only collect flags, and the GPU skips voxels whose lower
// bound on the touch start cannot beat the best found. These cases check both twins against
// the definition evaluated voxel by voxel (every voxel near each segment, its touch start,
// the flags of every segment), under each unknown-space policy.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/query/collision_geometry.hpp"
#include "voxen/query/collision_prep.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace {

using namespace voxen;

// The definition: for every segment, every voxel of a box holding its capsule, the touch
// start (collision_geometry.hpp); a path's flags over all its segments, its answer the first
// segment with a touching colliding voxel and that segment's smallest touch start.
std::vector<PathAnswer> definitionPaths(const OccupancyMap& map, const std::vector<glm::dvec3>& points,
                                        const std::vector<uint64_t>& offsets, double radius, UnknownSpace unknown) {
  const size_t paths = offsets.size() - 1;
  const PreparedPaths prepared = preparePaths(map.model(), points, offsets, 0, paths, radius);
  const int reach = int(std::ceil(radius / map.model().resolution)) + 2;
  const float threshold = map.model().thresholdValue();
  std::vector<PathAnswer> answers;
  for (size_t p = 0; p < paths; ++p) {
    uint32_t flags = 0;
    std::vector<uint32_t> starts;
    for (uint32_t s = prepared.firstSegment[p]; s < prepared.firstSegment[p + 1]; ++s) {
      const gpu::CollisionSegment& seg = prepared.segments[s];
      const collision::V3 a{seg.start.x, seg.start.y, seg.start.z}, d{seg.delta.x, seg.delta.y, seg.delta.z};
      uint32_t best = gpu::kCollisionNoTouch;
      const int lo[3] = {int(std::floor(std::min(0.0f, d.x))) - reach, int(std::floor(std::min(0.0f, d.y))) - reach,
                         int(std::floor(std::min(0.0f, d.z))) - reach};
      const int hi[3] = {int(std::ceil(std::max(0.0f, d.x))) + reach, int(std::ceil(std::max(0.0f, d.y))) + reach,
                         int(std::ceil(std::max(0.0f, d.z))) + reach};
      for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
          for (int x = lo[0]; x <= hi[0]; ++x) {
            const float t = collision::segmentTouchStart(a, d, seg.start.w, prepared.radius2, prepared.reject2,
                                                         {float(x), float(y), float(z)});
            if (t < 0.0f) continue;
            const VoxelCoord v{seg.anchor.x + x, seg.anchor.y + y, seg.anchor.z + z};
            const Region* region = map.findRegion(map.regionOf(v));
            const float value = region ? region->occupancy()[map.localIndex(v)] : kUnobserved;
            const bool unobserved = !isObserved(value), occupied = !unobserved && value >= threshold;
            flags |= (region ? gpu::kCollisionInMap : 0u) | (occupied ? gpu::kCollisionOccupied : 0u) |
                     (unobserved ? gpu::kCollisionUnobserved : 0u);
            if (occupied || (unobserved && unknown == UnknownSpace::Occupied))
              best = std::min(best, std::bit_cast<uint32_t>(t));
          }
      starts.push_back(best);
    }
    answers.push_back(finishPath(flags, starts));
  }
  return answers;
}

// GPU, CPU twin and the definition agree bit for bit; the CPU's answers returned.
std::vector<PathAnswer> checkedPaths(GpuQueries& gpu, const OccupancyMap& map, const std::vector<glm::dvec3>& points,
                                     const std::vector<uint64_t>& offsets, double radius, UnknownSpace unknown) {
  const auto cpu = cpuPathCollisions(map, points, offsets, radius, unknown);
  const auto reference = definitionPaths(map, points, offsets, radius, unknown);
  const auto onGpu = gpu.pathCollisions(points, offsets, radius, unknown);
  REQUIRE(cpu.size() == reference.size());
  REQUIRE(onGpu.size() == reference.size());
  size_t cpuWrong = 0, gpuWrong = 0, first = SIZE_MAX;
  for (size_t i = 0; i < reference.size(); ++i) {
    if (!(cpu[i] == reference[i]) || !(onGpu[i] == reference[i])) first = std::min(first, i);
    cpuWrong += !(cpu[i] == reference[i]);
    gpuWrong += !(onGpu[i] == reference[i]);
  }
  INFO("first mismatch at path " << first << " (unknown policy " << int(unknown) << ")");
  CHECK(cpuWrong == 0);
  CHECK(gpuWrong == 0);
  return cpu;
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
  map.region(map.regionOf({5, 5, 5})).occupancy()[map.localIndex({5, 5, 5})] = 2.0f;
  map.region(map.regionOf({-3, -3, -3})).occupancy()[map.localIndex({-3, -3, -3})] = kUnobserved;
  return map;
}

}  // namespace

TEST_CASE("Path collisions: a later segment's flags count after an early collision", "[query][collision][paths]") {
  const OccupancyMap map = oneVoxelMap();
  GpuQueries gpu(vt::gpu().scheduler, map);
  // Segment 0 starts in the unobserved voxel, segment 1 ends in the occupied one, segment 2
  // leaves the map. Under Occupied the path collides at once (segment 0, t 0), and its status
  // is still Observed: segment 1 touches an occupied voxel, though no touch start of it is
  // needed. Under Free and Report it collides on segment 1.
  const std::vector<glm::dvec3> path{{-0.25, -0.25, -0.25}, {-0.25, -0.25, 0.0}, {0.55, 0.55, 0.55}, {3.0, 3.0, 3.0}};
  const auto occ = checkedPaths(gpu, map, path, {0, 4}, 0.01, UnknownSpace::Occupied);
  CHECK(occ[0].collides);
  CHECK(occ[0].segment == 0);
  CHECK(occ[0].t == 0.0f);
  CHECK(occ[0].status == QueryStatus::Observed);
  for (UnknownSpace u : {UnknownSpace::Free, UnknownSpace::Report}) {
    const auto a = checkedPaths(gpu, map, path, {0, 4}, 0.01, u);
    CHECK(a[0].collides);
    CHECK(a[0].segment == 1);
    CHECK(a[0].t > 0.0f);
    CHECK(a[0].status == QueryStatus::Observed);
  }
  // Colliding on segment 0 (the occupied voxel, mid-segment) and free afterwards: the later
  // free segments change nothing.
  const std::vector<glm::dvec3> early{{0.2, 0.55, 0.55}, {0.9, 0.55, 0.55}, {0.9, -0.5, 0.55}, {0.2, -0.5, 0.55}};
  for (UnknownSpace u : {UnknownSpace::Occupied, UnknownSpace::Free, UnknownSpace::Report}) {
    const auto a = checkedPaths(gpu, map, early, {0, 4}, 0.05, u);
    CHECK(a[0].segment == 0);
    CHECK(a[0].t == Approx((0.5 - 0.05 - 0.2) / 0.7).margin(1e-5));
    CHECK(a[0].status == QueryStatus::Observed);
  }
}

TEST_CASE("Path collisions through unobserved space under each policy", "[query][collision][paths]") {
  const OccupancyMap map = oneVoxelMap();
  GpuQueries gpu(vt::gpu().scheduler, map);
  // Wholly outside the map (every voxel unobserved, none in a region): long diagonals, so
  // many slabs; and one entering the map from outside, touching only free voxels inside.
  const std::vector<glm::dvec3> points{{5.0, 5.0, 5.0}, {9.0, 7.0, 6.0}, {8.0, 2.0, 5.0},
                                       {-2.0, 0.35, 0.35}, {0.3, 0.35, 0.35}};
  const std::vector<uint64_t> offsets{0, 3, 5};
  const auto occ = checkedPaths(gpu, map, points, offsets, 0.2, UnknownSpace::Occupied);
  CHECK(occ[0].collides);
  CHECK(occ[0].segment == 0);
  CHECK(occ[0].t == 0.0f);
  CHECK(occ[0].status == QueryStatus::OutsideMap);
  CHECK(occ[1].collides);
  CHECK(occ[1].t == 0.0f);
  CHECK(occ[1].status == QueryStatus::Unobserved);
  for (UnknownSpace u : {UnknownSpace::Free, UnknownSpace::Report}) {
    const auto a = checkedPaths(gpu, map, points, offsets, 0.2, u);
    CHECK_FALSE(a[0].collides);
    CHECK(a[0].segment == -1);
    CHECK(a[0].status == QueryStatus::OutsideMap);
    CHECK_FALSE(a[1].collides);
    CHECK(a[1].status == QueryStatus::Unobserved);
  }
  // Leaving the map (voxels -8 .. 15, metres [-0.8, 1.6)) under Occupied: the first
  // unobserved voxel is met at its edge, x = 1.6 m, mid-segment: the sphere of 0.05 m
  // reaches it at x = 1.55 m.
  const auto edge = checkedPaths(gpu, map, {{0.3, -0.35, -0.55}, {2.3, -0.35, -0.55}}, {0, 2}, 0.05,
                                 UnknownSpace::Occupied);
  CHECK(edge[0].collides);
  CHECK(edge[0].t == Approx((1.55 - 0.3) / 2.0).margin(1e-5));
  CHECK(edge[0].status == QueryStatus::Unobserved);
}

TEST_CASE("Path collisions on a lidar-built map equal the definition voxel by voxel, whole and in chunks",
          "[query][collision][paths][gpu]") {
  using namespace vt::occupancy;
  const std::vector<Ray> rays = smallLidarRun(1);
  const Run run = runGpu(rays, IntegrationOptions{});
  const OccupancyMap& map = run.map;
  RegionKey lo = map.regions().begin()->first, hi = lo;
  for (const auto& [key, region] : map.regions()) {
    lo = {std::min(lo.x, key.x), std::min(lo.y, key.y), std::min(lo.z, key.z)};
    hi = {std::max(hi.x, key.x), std::max(hi.y, key.y), std::max(hi.z, key.z)};
  }
  const double edge = map.model().resolution * map.regionSize();
  vt::Rng rng(3838);
  auto uni = [&](double a, double b) { return a + (b - a) * double(rng.next() >> 11) * 0x1p-53; };
  std::vector<glm::dvec3> points;
  std::vector<uint64_t> offsets{0};
  for (int i = 0; i < 120; ++i) {
    // Half from anywhere in the box of the map's regions (mostly unobserved space), half
    // from points along the rays (observed free space, walls ahead).
    glm::dvec3 p(uni(lo.x * edge, (hi.x + 1) * edge), uni(lo.y * edge, (hi.y + 1) * edge),
                 uni(lo.z * edge, (hi.z + 1) * edge));
    if (i % 2 == 1) {
      const Ray& ray = rays[rng.next() % rays.size()];
      p = ray.origin + (ray.sample - ray.origin) * uni(0.0, 0.6);
    }
    const int n = 2 + int(rng.next() % 5);
    for (int k = 0; k < n; ++k) {
      points.push_back(p);
      // Mostly short segments (some of zero length), now and then a long one.
      const double step = k % 3 == 2 ? 3.0 : (rng.next() % 8 == 0 ? 0.0 : 0.8);
      p += glm::dvec3(uni(-step, step), uni(-step, step), uni(-step / 2, step / 2));
    }
    offsets.push_back(points.size());
  }
  QueryOptions chunked;
  chunked.cacheBytes = RegionCache::bytesPerRegion(map) * 3;
  for (const QueryOptions& options : {QueryOptions{}, chunked}) {
    GpuQueries gpu(vt::gpu().scheduler, map, options);
    INFO("chunks " << gpu.chunkCount());
    for (UnknownSpace u : {UnknownSpace::Occupied, UnknownSpace::Free, UnknownSpace::Report}) {
      INFO("unknown policy " << int(u));
      const auto a = checkedPaths(gpu, map, points, offsets, 0.25, u);
      // The answers vary: hits on later segments and inside segments, free paths.
      size_t hits = 0, later = 0, midT = 0;
      for (const auto& x : a) hits += x.collides, later += x.segment > 0, midT += x.t > 0.0f && x.t < 1.0f;
      CHECK(hits > 0);
      CHECK(hits < a.size());
      CHECK(later > 0);
      CHECK(midT > 0);
    }
  }
}

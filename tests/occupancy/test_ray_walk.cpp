// The voxel walk shared by the CPU reference and the GPU: unit steps from the origin voxel
// to the sample voxel, the same voxels in reverse, segments that add up to the whole walk,
// and regions that are exactly those the voxels lie in.
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>
#include <set>

#include "support/gpu_fixture.hpp"
#include "voxen/occupancy/ray_walk.hpp"

namespace {

using voxen::VoxelCoord;

struct Visit {
  VoxelCoord v;
  float tEnter, tExit;
};

std::vector<Visit> walk(const voxen::PreparedRay& r, uint32_t s, uint32_t m, bool reverse) {
  std::vector<Visit> visits;
  voxen::walkSegment(r, s, m, reverse, [&](const VoxelCoord& v, float a, float b) { visits.push_back({v, a, b}); });
  return visits;
}

std::vector<VoxelCoord> voxels(const std::vector<Visit>& visits) {
  std::vector<VoxelCoord> out;
  for (const auto& v : visits) out.push_back(v.v);
  return out;
}

voxen::Ray randomRay(vt::Rng& rng, double extent, double offset = 0.0) {
  auto coord = [&] { return offset + (double(rng.u32()) / 4294967296.0 - 0.5) * extent; };
  voxen::Ray ray;
  ray.origin = {coord(), coord(), coord()};
  ray.sample = {coord(), coord(), coord()};
  // Now and then an axis-aligned ray or one that stays inside its voxel.
  if (rng.chance(10)) ray.sample.y = ray.origin.y, ray.sample.z = ray.origin.z;
  if (rng.chance(5)) ray.sample = ray.origin + glm::dvec3(0.01, -0.01, 0.02);
  return ray;
}

int manhattan(const VoxelCoord& a, const VoxelCoord& b) {
  return std::abs(a.x - b.x) + std::abs(a.y - b.y) + std::abs(a.z - b.z);
}

// Distance from the voxel's box to the ray segment, by sampling (an independent check).
bool segmentTouchesVoxel(const voxen::Ray& ray, const VoxelCoord& v, double res) {
  const glm::dvec3 lo = glm::dvec3(v.x, v.y, v.z) * res, hi = lo + res;
  // Slab test in double with a small tolerance.
  double t0 = 0.0, t1 = 1.0;
  const glm::dvec3 d = ray.sample - ray.origin;
  for (int a = 0; a < 3; ++a) {
    const double eps = 1e-4 * res;
    if (std::abs(d[a]) < 1e-15) {
      if (ray.origin[a] < lo[a] - eps || ray.origin[a] > hi[a] + eps) return false;
      continue;
    }
    double ta = (lo[a] - eps - ray.origin[a]) / d[a], tb = (hi[a] + eps - ray.origin[a]) / d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  return t0 <= t1;
}

}  // namespace

TEST_CASE("The walk steps one face at a time from the origin voxel to the sample voxel", "[occupancy][walk]") {
  vt::Rng rng(42);
  voxen::OccupancyModel model;
  for (int i = 0; i < 2000; ++i) {
    const voxen::Ray ray = randomRay(rng, 8.0);
    const auto r = voxen::prepareRay(ray, model, {});
    const auto path = voxels(walk(r, 0, 1, false));
    REQUIRE(path.size() == r.crossings() + 1);
    CHECK(path.front() == r.start);
    CHECK(path.back() == r.end);
    for (size_t k = 1; k < path.size(); ++k) REQUIRE(manhattan(path[k - 1], path[k]) == 1);
    for (const auto& v : path) REQUIRE(segmentTouchesVoxel(ray, v, model.resolution));
  }
}

TEST_CASE("Reverse walks visit the same voxels in the opposite order", "[occupancy][walk]") {
  vt::Rng rng(7);
  voxen::OccupancyModel model;
  for (int i = 0; i < 2000; ++i) {
    const auto r = voxen::prepareRay(randomRay(rng, 6.0), model, {});
    const auto forward = walk(r, 0, 1, false);
    auto reverse = walk(r, 0, 1, true);
    std::reverse(reverse.begin(), reverse.end());
    REQUIRE(forward.size() == reverse.size());
    for (size_t k = 0; k < forward.size(); ++k) {
      REQUIRE(forward[k].v == reverse[k].v);
      CHECK(forward[k].tEnter == reverse[k].tEnter);
      CHECK(forward[k].tExit == reverse[k].tExit);
    }
  }
}

TEST_CASE("Segments of a walk add up to the whole walk, each bounded", "[occupancy][walk]") {
  vt::Rng rng(99);
  voxen::OccupancyModel model;
  for (int i = 0; i < 500; ++i) {
    const auto r = voxen::prepareRay(randomRay(rng, 30.0), model, {});
    const auto whole = walk(r, 0, 1, false);
    for (uint32_t maxCrossings : {8u, 16u, 64u}) {
      const uint32_t m = voxen::segmentCount(r, maxCrossings);
      for (bool reverse : {false, true}) {
        std::vector<Visit> joined;
        for (uint32_t s = 0; s < m; ++s) {
          auto part = walk(r, s, m, reverse);
          REQUIRE(part.size() <= maxCrossings + 4);
          if (reverse) std::reverse(part.begin(), part.end());
          joined.insert(joined.end(), part.begin(), part.end());
        }
        REQUIRE(joined.size() == whole.size());
        for (size_t k = 0; k < whole.size(); ++k) {
          REQUIRE(joined[k].v == whole[k].v);
          REQUIRE(joined[k].tEnter == whole[k].tEnter);
          REQUIRE(joined[k].tExit == whole[k].tExit);
        }
      }
    }
  }
}

TEST_CASE("regionsOnRay lists exactly the regions of the walked voxels, in order", "[occupancy][walk]") {
  vt::Rng rng(5);
  voxen::OccupancyModel model;
  model.regionSize = 8;
  voxen::OccupancyMap map(model);
  for (int i = 0; i < 2000; ++i) {
    const auto r = voxen::prepareRay(randomRay(rng, 12.0), model, {});
    std::vector<voxen::RegionKey> expected;
    for (const auto& v : voxels(walk(r, 0, 1, false))) {
      const auto key = map.regionOf(v);
      if (expected.empty() || !(expected.back() == key)) expected.push_back(key);
    }
    const auto regions = voxen::regionsOnRay(r, model.regionSize);
    REQUIRE(regions.size() == expected.size());
    for (size_t k = 0; k < regions.size(); ++k) REQUIRE(regions[k] == expected[k]);
  }
}

TEST_CASE("Rays far from the origin walk the same voxels relative to their start", "[occupancy][walk]") {
  // Positions kilometres away keep their voxel-exact walk: the float part is relative to
  // the origin voxel, so a translation by whole voxels gives the same relative path.
  vt::Rng rng(3);
  voxen::OccupancyModel model;
  const glm::dvec3 shift(10000.0, -10000.0, 2500.0);  // a whole number of 0.1 m voxels
  int identical = 0, total = 0;
  for (int i = 0; i < 1000; ++i) {
    voxen::Ray ray = randomRay(rng, 20.0);
    // Snap the endpoints to a 1/64 mm grid so the translation is exact in double.
    for (int a = 0; a < 3; ++a) {
      ray.origin[a] = std::round(ray.origin[a] * 65536.0) / 65536.0;
      ray.sample[a] = std::round(ray.sample[a] * 65536.0) / 65536.0;
    }
    voxen::Ray far = ray;
    far.origin += shift;
    far.sample += shift;
    const auto a = voxels(walk(voxen::prepareRay(ray, model, {}), 0, 1, false));
    const auto b = voxels(walk(voxen::prepareRay(far, model, {}), 0, 1, false));
    ++total;
    if (a.size() != b.size()) continue;
    bool same = true;
    for (size_t k = 0; k < a.size(); ++k)
      same = same && b[k].x - a[k].x == b[0].x - a[0].x && b[k].y - a[k].y == b[0].y - a[0].y &&
             b[k].z - a[k].z == b[0].z - a[0].z;
    identical += same;
  }
  // Division by 0.1 is inexact, so an endpoint within 1e-12 m of a face may land on the
  // other side after the shift; such rays are rare.
  CHECK(identical >= total * 995 / 1000);
}

TEST_CASE("maxRange clips long rays and frees their end", "[occupancy][walk]") {
  voxen::OccupancyModel model;
  voxen::Ray ray{{0.05, 0.05, 0.05}, {10.05, 0.05, 0.05}, 0.0};
  bool clipped = false;
  const auto r = voxen::prepareRay(ray, model, {.flags = {}, .maxRange = 2.0}, &clipped);
  CHECK(clipped);
  CHECK(r.end.x == 20);
  CHECK_FALSE(r.flags & voxen::kSampleHit);
  const auto unclipped = voxen::prepareRay(ray, model, {}, &clipped);
  CHECK_FALSE(clipped);
  CHECK(unclipped.end.x == 100);
  CHECK(unclipped.flags & voxen::kSampleHit);
}

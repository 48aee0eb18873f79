// The voxel walk (ray_walk.hpp, which the GPU's ray_walk.glsl mirrors) against an exact
// oracle on adversarial rays (tests/support/walk_oracle.hpp): rays through voxel corners
// and edges, axis-aligned rays on faces, rays through lattice points, nearly parallel and
// nearly diagonal rays. The oracle orders the face crossings by their exact rational t;
// the walk computes t = (p - o) * (1/d) in float. Where that arithmetic is exact, or where
// tied crossings are computed from bit-identical operands, the walk must visit exactly the
// oracle's voxels in its order, forwards, backwards and cut into segments; elsewhere it may
// swap only crossings whose exact times lie within float rounding of each other.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/walk_oracle.hpp"
#include "voxen/occupancy/ray_walk.hpp"

namespace {

using namespace vt::walk_oracle;

std::vector<glm::ivec3> walked(const voxen::PreparedRay& r, uint32_t s, uint32_t m, bool reverse) {
  std::vector<glm::ivec3> out;
  voxen::walkSegment(r, s, m, reverse, [&](const voxen::VoxelCoord& v, float, float) { out.emplace_back(v.x, v.y, v.z); });
  return out;
}

// The whole walk, joined from m segments (reverse segments turned around).
std::vector<glm::ivec3> joinedWalk(const voxen::PreparedRay& r, uint32_t m, bool reverse) {
  std::vector<glm::ivec3> out;
  for (uint32_t s = 0; s < m; ++s) {
    std::vector<glm::ivec3> part = walked(r, s, m, reverse);
    if (reverse) std::reverse(part.begin(), part.end());
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

voxen::OccupancyModel unitModel() {
  voxen::OccupancyModel model;
  model.resolution = 1.0;  // voxel units are metres: the grid rays' end points stay exact
  return model;
}

std::string describe(const GridRay& g) {
  std::string s = "from (";
  for (int a = 0; a < 3; ++a) s += std::to_string(g.from[a]) + (a < 2 ? ", " : ") to (");
  for (int a = 0; a < 3; ++a) s += std::to_string(g.to[a]) + (a < 2 ? ", " : ") / 2^22 voxels");
  return s;
}

}  // namespace

TEST_CASE("The walk visits exactly an exact oracle's voxels on corner, edge, axis-aligned and lattice rays",
          "[occupancy][walk][oracle]") {
  const voxen::OccupancyModel model = unitModel();
  size_t checked = 0, ties = 0;
  for (const GridRay& g : adversarialRays(11, 400)) {
    if (!g.exact) continue;
    INFO(describe(g));
    const voxen::PreparedRay r = voxen::prepareRay(g.ray(), model, {});
    const std::vector<glm::ivec3> expected = oracleVoxels(g);
    REQUIRE(r.crossings() + 1 == expected.size());
    REQUIRE(walked(r, 0, 1, false) == expected);
    std::vector<glm::ivec3> reverse = walked(r, 0, 1, true);
    std::reverse(reverse.begin(), reverse.end());
    REQUIRE(reverse == expected);
    for (uint32_t maxCrossings : {2u, 5u, 16u}) {
      const uint32_t m = voxen::segmentCount(r, maxCrossings);
      REQUIRE(joinedWalk(r, m, false) == expected);
      REQUIRE(joinedWalk(r, m, true) == expected);
    }
    const std::vector<Crossing> crossings = oracleCrossings(g);
    for (size_t k = 1; k < crossings.size(); ++k)
      ties += sameTime(crossings[k], crossings[k - 1]);
    ++checked;
  }
  CHECK(checked == 1600);
  // The families do what they are for: many crossings of two or three axes at one t.
  CHECK(ties > 5000);
}

TEST_CASE("On nearly parallel and nearly diagonal rays the walk swaps only crossings within float rounding",
          "[occupancy][walk][oracle]") {
  const voxen::OccupancyModel model = unitModel();
  size_t checked = 0, sameAsOracle = 0, nearTies = 0;
  for (const GridRay& g : adversarialRays(12, 400)) {
    if (g.exact) continue;
    INFO(describe(g));
    const voxen::PreparedRay r = voxen::prepareRay(g.ray(), model, {});
    const std::vector<glm::ivec3> path = walked(r, 0, 1, false);
    const std::vector<Crossing> expected = oracleCrossings(g);
    REQUIRE(path.size() == expected.size() + 1);
    REQUIRE(path.front() == oracleVoxels(g).front());
    // The walk's crossings, read off its unit steps: which axis moved, and how often before.
    int64_t count[3] = {0, 0, 0};
    for (size_t k = 1; k < path.size(); ++k) {
      const glm::ivec3 step = path[k] - path[k - 1];
      REQUIRE(std::abs(step.x) + std::abs(step.y) + std::abs(step.z) == 1);
      const int axis = step.x != 0 ? 0 : step.y != 0 ? 1 : 2;
      REQUIRE(step[axis] == (g.to[axis] > g.from[axis] ? 1 : -1));
      const Crossing c = crossingOf(g, axis, count[axis]++);
      INFO("crossing " << k - 1 << ": the walk's axis " << axis << ", the oracle's axis " << expected[k - 1].axis);
      REQUIRE(nearOrderTolerance(c, expected[k - 1]));
      nearTies += expected[k - 1].axis != axis;
    }
    sameAsOracle += path == oracleVoxels(g);
    // Reverse and segmented walks take the walk's own order, whatever it is.
    std::vector<glm::ivec3> reverse = walked(r, 0, 1, true);
    std::reverse(reverse.begin(), reverse.end());
    REQUIRE(reverse == path);
    REQUIRE(joinedWalk(r, voxen::segmentCount(r, 3), false) == path);
    REQUIRE(joinedWalk(r, voxen::segmentCount(r, 3), true) == path);
    ++checked;
  }
  CHECK(checked == 1200);
  // Most rays have no crossings within rounding of each other: there the walk is the oracle.
  CHECK(sameAsOracle > checked * 8 / 10);
  // ... and the nearly diagonal family does make the walk swap crossings (1,950 positions of
  // 1,200 rays here), so the tolerance above is what is being tested.
  CHECK(nearTies > 100);
}

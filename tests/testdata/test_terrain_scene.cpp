// The ramp primitive's ray intersection and distance, and the terrain scene built from it
// (SyntheticScene::terrain, voxen generate --scene terrain): its features where the design
// puts them, a passage under the bridge, a sensor path clear of everything, and returns on
// the surfaces.
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "voxen/testdata/synthetic_lidar.hpp"

namespace {

using voxen::LidarConfig;
using voxen::SceneRamp;
using voxen::SyntheticScene;
using voxen::TerrainDesign;

// Inside the ramp by its definition (plan rectangle, base, top plane), with a tolerance:
// independent of the library's half-space code.
bool insideRamp(const SceneRamp& r, const glm::dvec3& p, double tolerance = 0.0) {
  const double along = r.axis == 0 ? p.x : p.y;
  const double lo = r.axis == 0 ? r.min.x : r.min.y, hi = r.axis == 0 ? r.max.x : r.max.y;
  const double top = r.zStart + (r.zEnd - r.zStart) * (along - lo) / (hi - lo);
  return p.x > r.min.x - tolerance && p.x < r.max.x + tolerance && p.y > r.min.y - tolerance &&
         p.y < r.max.y + tolerance && p.z > r.zBase - tolerance && p.z < top + tolerance;
}

const voxen::SceneArea& feature(const SyntheticScene& scene, const std::string& name) {
  for (const auto& area : scene.areas)
    if (area.name == name) return area;
  FAIL("no feature " << name);
  return scene.areas.front();
}

// A ray straight down from 5 m at the plan point: the height of the first surface there.
double heightBelow(const SyntheticScene& scene, glm::dvec2 p) {
  const auto hit = scene.raycast({p, 5.0}, {0, 0, -1}, 10.0);
  REQUIRE(hit.has_value());
  return 5.0 - *hit;
}

}  // namespace

TEST_CASE("ramp primitive: rays enter through the inclined top, the ends, the sides and the base", "[synthetic]") {
  SyntheticScene scene;
  // A sloped block over x 0..4 (top 0.5 at x = 0 up to 1.5 at x = 4: gradient 0.25) and a wedge
  // sloping down along y (top 1 at y = 0 down to 0 at y = 2).
  scene.ramps = {{{0, -1}, {4, 1}, 0.0, 0.5, 1.5, 0}, {{6, 0}, {7, 2}, 0.0, 1.0, 0.0, 1}};
  scene.buildAccelerator();
  CHECK(scene.boundsMin == glm::dvec3(0, -1, 0));
  CHECK(scene.boundsMax == glm::dvec3(7, 2, 1.5));
  CHECK(scene.ramps[0].topAt({2, 0}) == Approx(1.0));
  auto cast = [&](glm::dvec3 o, glm::dvec3 d, double range = 100.0) {
    return scene.raycast(o, glm::normalize(d), range);
  };
  CHECK(cast({2, 0, 5}, {0, 0, -1}).value_or(-1) == Approx(4.0));      // down onto the top
  CHECK(cast({0.5, 0.3, 5}, {0, 0, -1}).value_or(-1) == Approx(4.375));
  CHECK(cast({-1, 0, 0.3}, {1, 0, 0}).value_or(-1) == Approx(1.0));     // the low end's face
  CHECK(cast({-1, 0, 0.7}, {1, 0, 0}).value_or(-1) == Approx(1.8));     // over that face, into the slope
  CHECK(cast({0, 0, 3}, {1, 0, -1}).value_or(-1) == Approx(2 * std::sqrt(2.0)));  // 3 - x = 0.5 + 0.25 x
  CHECK(cast({1, -3, 1.2}, {0, 1, -0.5}).value_or(-1) == Approx(2 * std::sqrt(1.25)));  // the south side
  CHECK(cast({2, 0, -1}, {0, 0, 1}).value_or(-1) == Approx(1.0));       // the base from below
  CHECK(cast({6.5, 0.5, 3}, {0, 0, -1}).value_or(-1) == Approx(2.25));  // the wedge, sloping along y
  CHECK(cast({6.5, 3, 0.25}, {0, -1, 0}).value_or(-1) == Approx(1.5));  // its slope from the low end (y = 1.5)
  CHECK_FALSE(cast({-1, 0, 0.6}, {1, 0, 0.25}).has_value());           // above the top, parallel to it
  CHECK_FALSE(cast({2, 0, 5}, {0, 0, -1}, 3.9).has_value());           // beyond max range
  for (glm::dvec3 d : {glm::dvec3(-1, 0, 0), glm::dvec3(0, 0, 1), glm::dvec3(-1, 1, -1)})
    CHECK_FALSE(cast({2, 0, 0.5}, d).has_value());  // from inside: seen only from outside
  // Distances: perpendicular to the slope above it, to the top's west edge beyond it, to the base inside.
  CHECK(scene.distanceToSurface({2, 0, 2}) == Approx(1.0 / std::sqrt(1.0 + 0.0625)));
  CHECK(scene.distanceToSurface({-1, 0, 2}) == Approx(std::sqrt(1.0 + 1.5 * 1.5)));
  CHECK(scene.distanceToSurface({2, 0, 0.2}) == Approx(0.2));
  CHECK(scene.distanceToSurface({6.5, 1.0, 0.5}) == Approx(0.0).margin(1e-12));  // on the wedge's slope

  // Random rays against the definition: a hit lies on the ramp's boundary with nothing of it
  // before; a miss passes outside it all along.
  uint64_t state = 12345;
  auto unit = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1.0p-53;
  };
  int hits = 0;
  for (int i = 0; i < 3000; ++i) {
    const glm::dvec3 o(-2 + 11 * unit(), -3 + 6 * unit(), -1 + 4 * unit());
    const glm::dvec3 d = glm::normalize(glm::dvec3(unit() - 0.5, unit() - 0.5, unit() - 0.5));
    bool inside = false;
    for (const SceneRamp& r : scene.ramps) inside = inside || insideRamp(r, o);
    if (inside) continue;
    const auto hit = scene.raycast(o, d, 20.0);
    const double end = hit ? *hit : 20.0;
    INFO("origin " << o.x << " " << o.y << " " << o.z << ", direction " << d.x << " " << d.y << " " << d.z);
    bool passedThrough = false;  // (a plain bool: a Catch assertion per step would take seconds)
    for (double s = 0.0; s < end - 1e-6; s += 0.004)
      for (const SceneRamp& r : scene.ramps) passedThrough = passedThrough || insideRamp(r, o + s * d, -1e-9);
    CHECK_FALSE(passedThrough);
    if (!hit) continue;
    ++hits;
    const glm::dvec3 p = o + *hit * d;
    bool onBoundary = false;
    for (const SceneRamp& r : scene.ramps) onBoundary = onBoundary || (insideRamp(r, p, 1e-9) && !insideRamp(r, p, -1e-9));
    CHECK(onBoundary);
  }
  CHECK(hits > 150);  // about 270: most random rays miss two small solids
}

TEST_CASE("terrain scene: ramps, a bridge over a passage, a table and steps where the design puts them", "[synthetic]") {
  const SyntheticScene a = SyntheticScene::terrain(1), b = SyntheticScene::terrain(1);
  CHECK(a.kind == voxen::SceneKind::Terrain);
  REQUIRE(a.ramps.size() == 2);
  CHECK(a.primitiveCount() == b.primitiveCount());
  CHECK(a.pathLength == b.pathLength);
  CHECK(a.pathLength == Approx(65).margin(3));
  const double deg = 180.0 / std::numbers::pi;
  CHECK(std::atan(std::abs(a.ramps[0].gradient())) * deg == Approx(TerrainDesign::gentleRampDegrees));
  CHECK(std::atan(std::abs(a.ramps[1].gradient())) * deg == Approx(TerrainDesign::steepRampDegrees));

  // Straight down at each feature's centre: its top.
  auto centre = [&](const char* name) { return 0.5 * (feature(a, name).min + feature(a, name).max); };
  CHECK(heightBelow(a, centre("open ground")) == Approx(0.0).margin(1e-9));
  CHECK(heightBelow(a, centre("gentle ramp")) == Approx(TerrainDesign::platformHeight / 2));
  CHECK(heightBelow(a, centre("steep ramp")) == Approx(TerrainDesign::platformHeight / 2));
  CHECK(heightBelow(a, centre("bridge")) == Approx(TerrainDesign::platformHeight));
  CHECK(heightBelow(a, centre("table")) == Approx(TerrainDesign::tableTop));
  CHECK(heightBelow(a, centre("low step")) == Approx(TerrainDesign::lowStep));
  CHECK(heightBelow(a, centre("high step")) == Approx(TerrainDesign::highStep));
  // Under the table and under the bridge: the ground, with the room the design gives.
  const glm::dvec2 table = centre("table"), bridge = centre("bridge");
  CHECK(a.raycast({table, 0.3}, {0, 0, 1}, 5.0).value_or(-1) == Approx(TerrainDesign::tableUnderside - 0.3));
  CHECK(a.raycast({table, 0.3}, {0, 0, -1}, 5.0).value_or(-1) == Approx(0.3));
  CHECK(a.raycast({bridge, 0.3}, {0, 0, 1}, 5.0).value_or(-1) == Approx(TerrainDesign::deckBottom - 0.3));
  // The passage runs north-south under the deck, open at both ends; just above the deck's
  // underside a ray meets the deck's south face.
  CHECK_FALSE(a.raycast({bridge.x, -5.0, 0.5}, {0, 1, 0}, 10.0).has_value());
  CHECK(a.raycast({bridge.x, -5.0, 1.1}, {0, 1, 0}, 10.0).value_or(-1) == Approx(4.0));

  // The sensor path: closed, on the ground, at least a metre from everything at the sensor's height.
  REQUIRE(a.pathPoints.size() > 1000);
  CHECK(a.pathPoints.front() == a.pathPoints.back());
  double nearest = 1e300;
  for (size_t i = 0; i < a.pathPoints.size(); i += 10)
    nearest = std::min(nearest, a.distanceToSurface({a.pathPoints[i], TerrainDesign::sensorHeight}));
  CHECK(nearest > 1.0);
  CHECK(nearest < TerrainDesign::sensorHeight + 1e-9);  // the ground, right below
}

TEST_CASE("terrain scene: a lidar run's returns lie on the surfaces, the ramps' tops among them", "[synthetic]") {
  const SyntheticScene scene = SyntheticScene::terrain(1);
  LidarConfig lidar;
  lidar.rings = 16;
  lidar.columns = 256;
  lidar.scans = 60;
  lidar.speed = 3.0;  // 18 m of the loop: along the south lane past both ramps
  lidar.sensorHeight = TerrainDesign::sensorHeight;
  lidar.rangeNoiseStdDev = 0.0;
  std::vector<uint8_t> noReturn;
  const std::vector<voxen::Ray> rays = generateLidarRays(scene, lidar, &noReturn);
  size_t returns = 0, onRampTops[2] = {0, 0};
  double worst = 0.0;
  for (size_t i = 0; i < rays.size(); ++i) {
    if (noReturn[i]) continue;
    ++returns;
    const glm::dvec3 p = rays[i].sample;
    worst = std::max(worst, scene.distanceToSurface(p));
    for (int r = 0; r < 2; ++r) {
      const SceneRamp& ramp = scene.ramps[size_t(r)];
      if (p.x > ramp.min.x && p.x < ramp.max.x && p.y > ramp.min.y && p.y < ramp.max.y &&
          std::abs(p.z - ramp.topAt(glm::dvec2(p))) < 1e-6)
        ++onRampTops[r];
    }
  }
  CHECK(returns > rays.size() / 5);  // the upper rings see the open sky
  CHECK(worst < 1e-6);
  CHECK(onRampTops[0] > 20);
  CHECK(onRampTops[1] > 20);
}

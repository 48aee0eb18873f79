// SyntheticScene::terrain(): the ground a robot drives on, built so that each thing a
// heightmap must get right stands on its own (voxen generate --scene terrain, README pictures,
// tests/cli/heightmap/terrain.sh). Plan (x east, y north; metres; the ground's top is z = 0):
//
//   y  5.5  ------------------------------ sensor lane, west to east -----------------------------
//      2-4     table   low step (0.1)   high step (0.4)     pillar
//     -1..1  gentle ramp 15 deg -> platform -> bridge over a passage -> platform -> steep ramp 40 deg
//     -3       box       ball                          wall
//   y -5.5  ------------------------------ sensor lane, east to west -----------------------------
//
// The passage under the bridge runs north-south, so the lanes look into it from both ends; the
// sensor (1.5 m high by default) stays on the ground, which it sees from 5.6 m away with the
// default 30 degree field of view, and looks down on every top. The layout does not depend on
// the seed.
#include <cmath>
#include <numbers>

#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

namespace {

constexpr double kDegree = std::numbers::pi / 180.0;

void addFeature(SyntheticScene& scene, const char* name, glm::dvec2 min, glm::dvec2 max) {
  scene.areas.push_back({name, min, max});
}

// The raised walk along y in [-1, 1]: a gentle ramp up, a platform, the bridge deck over the
// passage, a second platform and a steep ramp down.
void addRaisedWalk(SyntheticScene& scene) {
  using D = TerrainDesign;
  const double top = D::platformHeight;
  const double gentleEnd = 2.0 + top / std::tan(D::gentleRampDegrees * kDegree);  // about 6.48
  const double deckWest = 8.3, deckEast = 10.3, eastPlatformEnd = 11.3;
  const double steepEnd = eastPlatformEnd + top / std::tan(D::steepRampDegrees * kDegree);  // about 12.73
  scene.ramps.push_back({{2.0, -1.0}, {gentleEnd, 1.0}, 0.0, 0.0, top, 0});
  scene.boxes.push_back({{gentleEnd, -1.0, 0.0}, {deckWest, 1.0, top}});
  scene.boxes.push_back({{deckWest, -1.0, D::deckBottom}, {deckEast, 1.0, top}});
  scene.boxes.push_back({{deckEast, -1.0, 0.0}, {eastPlatformEnd, 1.0, top}});
  scene.ramps.push_back({{eastPlatformEnd, -1.0}, {steepEnd, 1.0}, 0.0, top, 0.0, 0});
  addFeature(scene, "gentle ramp", {2.0, -1.0}, {gentleEnd, 1.0});
  addFeature(scene, "west platform", {gentleEnd, -1.0}, {deckWest, 1.0});
  addFeature(scene, "bridge", {deckWest, -1.0}, {deckEast, 1.0});
  addFeature(scene, "east platform", {deckEast, -1.0}, {eastPlatformEnd, 1.0});
  addFeature(scene, "steep ramp", {eastPlatformEnd, -1.0}, {steepEnd, 1.0});
}

// A table on four legs: its top is a surface; the floor under it has too little room.
void addTable(SyntheticScene& scene, glm::dvec2 min, glm::dvec2 max) {
  using D = TerrainDesign;
  scene.boxes.push_back({{min, D::tableUnderside}, {max, D::tableTop}});
  const double leg = 0.05, inset = 0.05;
  for (int corner = 0; corner < 4; ++corner) {
    const double x = corner & 1 ? max.x - inset - leg : min.x + inset;
    const double y = corner & 2 ? max.y - inset - leg : min.y + inset;
    scene.boxes.push_back({{x, y, 0.0}, {x + leg, y + leg, D::tableUnderside}});
  }
  addFeature(scene, "table", min, max);
}

}  // namespace

SyntheticScene SyntheticScene::terrain(uint64_t seed) {
  using D = TerrainDesign;
  SyntheticScene scene;
  scene.seed = seed;
  scene.kind = SceneKind::Terrain;
  scene.boxes.push_back({{-5.0, -10.0, -0.2}, {25.0, 10.0, 0.0}});  // the ground, then nothing
  addFeature(scene, "open ground", {14.0, -1.5}, {19.0, 1.5});
  addRaisedWalk(scene);
  addTable(scene, {3.0, 2.6}, {4.2, 3.4});
  scene.boxes.push_back({{7.0, 2.2, 0.0}, {9.0, 4.0, D::lowStep}});
  addFeature(scene, "low step", {7.0, 2.2}, {9.0, 4.0});
  scene.boxes.push_back({{11.0, 2.2, 0.0}, {13.0, 4.0, D::highStep}});
  addFeature(scene, "high step", {11.0, 2.2}, {13.0, 4.0});
  scene.cylinders.push_back({{16.0, 3.0}, 0.25, 0.0, 2.5});
  addFeature(scene, "pillar", {15.75, 2.75}, {16.25, 3.25});
  scene.boxes.push_back({{4.7, -3.3, 0.0}, {5.3, -2.7, 1.0}});
  addFeature(scene, "box", {4.7, -3.3}, {5.3, -2.7});
  scene.spheres.push_back({{8.0, -3.0, 0.3}, 0.3});
  addFeature(scene, "ball", {7.7, -3.3}, {8.3, -2.7});
  scene.boxes.push_back({{14.0, -3.1, 0.0}, {18.0, -2.9, 2.0}});
  addFeature(scene, "wall", {14.0, -3.1}, {18.0, -2.9});
  // One loop round everything: east along y = -5.5, north at x = 21, west along y = 5.5, south
  // at x = -1, the corners rounded over about a metre (about 65 m a loop).
  scene.setPath({{1, -5.5}, {19, -5.5}, {21, -5.5}, {21, -3.5}, {21, 3.5}, {21, 5.5},
                 {19, 5.5}, {1, 5.5}, {-1, 5.5}, {-1, 3.5}, {-1, -3.5}, {-1, -5.5}});
  scene.buildAccelerator();
  return scene;
}

}  // namespace voxen

#include "voxen/testdata/scene_colours.hpp"

#include <cmath>

namespace voxen {

namespace {

// Distinct hues, none grey, so that a colour mixed up between surfaces is seen.
constexpr std::array<uint8_t, 3> kBase[kSceneSurfaces] = {
    {200, 170, 120},  // floor: sand
    {230, 230, 235},  // ceiling: white
    {90, 140, 210},   // wall: blue
    {220, 90, 60},    // object: orange-red
    {80, 180, 90},    // pillar: green
    {230, 200, 40},   // ball: yellow
    {160, 100, 190},  // ramp: purple
};

constexpr const char* kNames[kSceneSurfaces] = {"floor", "ceiling", "wall", "object", "pillar", "ball", "ramp"};

}  // namespace

const char* sceneSurfaceName(SceneSurface surface) { return kNames[int(surface)]; }

SceneSurface surfaceOf(const SyntheticScene& scene, const SyntheticScene::Hit& hit) {
  switch (hit.kind) {
    case SyntheticScene::Hit::Kind::Cylinder: return SceneSurface::Pillar;
    case SyntheticScene::Hit::Kind::Sphere: return SceneSurface::Ball;
    case SyntheticScene::Hit::Kind::Ramp: return SceneSurface::Ramp;
    default: break;
  }
  const SceneBox& box = scene.boxes[hit.index];
  if (box.max.z <= 0.0) return SceneSurface::Floor;
  if (scene.kind == SceneKind::Building) {
    const double ceiling = scene.options.ceilingHeight;
    if (box.min.z >= ceiling) return SceneSurface::Ceiling;
    if (box.max.z >= ceiling) return SceneSurface::Wall;
  }
  return SceneSurface::Object;
}

std::array<uint8_t, 3> surfaceBaseColour(SceneSurface surface) { return kBase[int(surface)]; }

std::array<uint8_t, 3> surfaceColour(SceneSurface surface, const glm::dvec3& point) {
  const std::array<uint8_t, 3> base = kBase[int(surface)];
  const double cells = std::floor(point.x / kCheckerCell) + std::floor(point.y / kCheckerCell) + std::floor(point.z / kCheckerCell);
  if (std::fmod(std::abs(cells), 2.0) == 0.0) return base;
  std::array<uint8_t, 3> dark{};
  for (int c = 0; c < 3; ++c) dark[c] = uint8_t(std::lround(base[c] * kCheckerDark));
  return dark;
}

}  // namespace voxen

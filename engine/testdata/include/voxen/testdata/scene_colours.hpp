#pragma once
// The synthetic scene's surface colours (issue 40: colour for the TSDF's tests), an albedo per
// surface point that does not depend on the view, so that every frame sees a point in the same
// colour and a colour TSDF can be held to it: each kind of surface has its own colour, and a
// 3D checker of kCheckerCell metre cells (full colour and kCheckerDark of it) makes a colour
// image that is shifted against its depth image show at every cell's edge.
//
//   if (const auto hit = scene.raycastHit(origin, direction, 8.0)) {
//     const glm::dvec3 inside = origin + direction * (hit->distance + kColourInset);
//     const std::array<uint8_t, 3> rgb = surfaceColour(surfaceOf(scene, *hit), inside);
//   }
//
// Threads: pure functions of their arguments (constant tables, no state): any thread, any time.
#include <array>
#include <cstdint>

#include <glm/vec3.hpp>

#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

enum class SceneSurface : uint8_t {
  Floor,    // boxes whose top is at or below z = 0 (the floor slab, the ground outside)
  Ceiling,  // building: boxes at or above the ceiling height
  Wall,     // building: boxes reaching the ceiling (walls and the lintels over doors)
  Object,   // other boxes (furniture in rooms; the terrain's blocks)
  Pillar,   // cylinders
  Ball,     // spheres
  Ramp,     // ramps
};
inline constexpr int kSceneSurfaces = 7;
const char* sceneSurfaceName(SceneSurface surface);  // "floor", "ceiling", ...

// Which surface a hit is on.
SceneSurface surfaceOf(const SyntheticScene& scene, const SyntheticScene::Hit& hit);

inline constexpr double kCheckerCell = 0.5;   // metres
inline constexpr double kCheckerDark = 0.6;   // the dark cells' share of the colour
// How far past the hit, along the ray, the colour is looked up: inside the primitive, so that a
// face lying on a cell boundary (the floor at z = 0) has one colour.
inline constexpr double kColourInset = 1e-6;  // metres

// The surface's colour (sRGB, 0-255) at a point: its base colour, darkened in the checker's
// odd cells (floor(x / cell) + floor(y / cell) + floor(z / cell) odd).
std::array<uint8_t, 3> surfaceColour(SceneSurface surface, const glm::dvec3& point);
// The base colour of a surface (the checker's light cells).
std::array<uint8_t, 3> surfaceBaseColour(SceneSurface surface);

}  // namespace voxen

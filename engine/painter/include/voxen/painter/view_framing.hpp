#pragma once
// Views that frame a map to fill a picture (the default views of `voxen render`):
//  - framePoints: a perspective view along a given direction, as close as every given point
//    still lies inside the picture on both axes, and shifted sideways so that the points'
//    picture is centred (a diagonal corridor seen from the side fills the picture, where
//    framing its bounding box left most of it empty);
//  - frameTopDown: an orthographic plan straight down on a box's x/y extent, x to the right
//    and y up, so that pixels map linearly to world x and y.
#include <span>

#include "voxen/painter/camera.hpp"

namespace voxen {

// Where the default perspective view looks (from the eye into the scene): from above and to
// the side, as every `voxen render` picture (map, heightmap, TSDF mesh) frames by default.
inline const glm::vec3 kRenderViewDirection = -glm::normalize(glm::vec3(-0.55f, -0.75f, 0.65f));

// `points` in world units; `direction` is where the camera looks (from the eye into the
// scene; not vertical); `fill` is the share of the picture's half-width and half-height the
// outermost point may reach. `depthLo`/`depthHi` bound everything that may be drawn (the
// near and far planes are set around them, not only around `points`). No points: the box.
Camera framePoints(std::span<const glm::vec3> points, const glm::vec3& depthLo, const glm::vec3& depthHi,
                   const glm::vec3& direction, float fovYDegrees, float aspect, float fill = 0.94f);

// The plan of [lo, hi] in x and y (lo.z/hi.z: the heights drawn, between the near and far
// planes), `fill` of the picture on the tighter axis, centred.
Camera frameTopDown(const glm::vec3& lo, const glm::vec3& hi, float aspect, float fill = 0.96f);

// A caller's camera from `eye` toward `target`, its near and far planes set so that [lo, hi]
// (everything drawn) lies between them from that eye.
Camera frameEyeTarget(const glm::vec3& eye, const glm::vec3& target, const glm::vec3& lo, const glm::vec3& hi, float fovYDegrees);

}  // namespace voxen

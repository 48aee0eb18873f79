#pragma once
// A perspective (or orthographic) camera for the painter and the map renderer, in Vulkan's conventions:
// clip space y points down and depth runs from 0 (near) to 1 (far), as the graphics
// pipeline expects, so the software rasterizer and the hardware one agree pixel for pixel.
#include <glm/glm.hpp>

namespace voxen {

struct Ray3 {
  glm::vec3 origin{0.0f};
  glm::vec3 direction{0.0f, 0.0f, -1.0f};  // normalised
};

struct Camera {
  glm::vec3 eye{0.0f, -3.0f, 2.0f};
  glm::vec3 target{0.0f};
  glm::vec3 up{0.0f, 0.0f, 1.0f};  // z up (docs/architecture.md: right-handed, metres)
  float fovYDegrees = 50.0f;
  float nearPlane = 0.05f;
  float farPlane = 1000.0f;
  // Orthographic: parallel rays along the view, the picture `orthoHeight` world units high
  // (its width from the aspect), so pixels map linearly to the world (`voxen render --view
  // top`); fovYDegrees is then unused.
  bool orthographic = false;
  float orthoHeight = 1.0f;

  // The up vector the view uses: `up`, unless the camera looks along it (straight down or
  // straight up), where it says nothing about the image's orientation; then the world axis
  // most across the view (+y first: a view from above is a plan with y up).
  glm::vec3 viewUp() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;
  glm::mat4 viewProj(uint32_t width, uint32_t height) const;
  // The ray through the centre of pixel (x, y) (top row y = 0): from the eye, or for an
  // orthographic camera from the pixel's point on the near plane.
  Ray3 rayThroughPixel(float x, float y, uint32_t width, uint32_t height) const;

  // Orbit controls: rotate the eye about the target (radians), and move it closer (factor < 1)
  // or further away.
  void orbit(float yaw, float pitch);
  void zoom(float factor);
};

// A camera that sees the axis-aligned box [lo, hi] from above and to the side, as close as
// the box still fits a picture of this aspect (width / height): the default view of
// `voxen render` and the painter.
Camera cameraFraming(const glm::vec3& lo, const glm::vec3& hi, float fovYDegrees = 50.0f, float aspect = 4.0f / 3.0f);

}  // namespace voxen

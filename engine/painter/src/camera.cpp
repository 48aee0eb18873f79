#include "voxen/painter/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace voxen {

glm::vec3 Camera::viewUp() const {
  const glm::vec3 forward = target - eye;
  const float forwardLength = glm::length(forward), upLength = glm::length(up);
  if (!(forwardLength > 0.0f) || !(upLength > 0.0f)) return up;
  const glm::vec3 f = forward / forwardLength;
  // lookAt takes the image's sideways axis from cross(forward, up): looking (almost) along
  // `up`, straight down on a map or straight up, it vanishes and the view fills with NaN.
  if (glm::length(glm::cross(f, up / upLength)) > 1e-4f) return up;
  // Then the world axis most across the view is the image's up: +y first, so that a view
  // from above shows the map as a plan (x to the right, y up).
  const glm::vec3 axes[3] = {{0.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
  glm::vec3 best = axes[0];
  for (const glm::vec3& axis : axes)
    if (std::abs(glm::dot(f, axis)) < std::abs(glm::dot(f, best)) - 1e-6f) best = axis;
  return best;
}

glm::mat4 Camera::view() const { return glm::lookAtRH(eye, target, viewUp()); }

glm::mat4 Camera::projection(float aspect) const {
  const float halfHeight = 0.5f * orthoHeight, halfWidth = halfHeight * aspect;
  glm::mat4 p = orthographic ? glm::orthoRH_ZO(-halfWidth, halfWidth, -halfHeight, halfHeight, nearPlane, farPlane)
                             : glm::perspectiveRH_ZO(glm::radians(fovYDegrees), aspect, nearPlane, farPlane);
  p[1][1] = -p[1][1];  // Vulkan's clip space has y pointing down
  return p;
}

glm::mat4 Camera::viewProj(uint32_t width, uint32_t height) const {
  return projection(float(width) / float(std::max(height, 1u))) * view();
}

Ray3 Camera::rayThroughPixel(float x, float y, uint32_t width, uint32_t height) const {
  const glm::mat4 inverse = glm::inverse(viewProj(width, height));
  const float ndcX = (x + 0.5f) / float(width) * 2.0f - 1.0f;
  const float ndcY = (y + 0.5f) / float(height) * 2.0f - 1.0f;
  const glm::vec4 nearPoint = inverse * glm::vec4(ndcX, ndcY, 0.0f, 1.0f);
  const glm::vec4 farPoint = inverse * glm::vec4(ndcX, ndcY, 1.0f, 1.0f);
  const glm::vec3 a = glm::vec3(nearPoint) / nearPoint.w, b = glm::vec3(farPoint) / farPoint.w;
  return {orthographic ? a : eye, glm::normalize(b - a)};
}

void Camera::orbit(float yaw, float pitch) {
  glm::vec3 offset = eye - target;
  const float radius = glm::length(offset);
  if (radius <= 0.0f) return;
  float azimuth = std::atan2(offset.y, offset.x) + yaw;
  float elevation = std::asin(std::clamp(offset.z / radius, -1.0f, 1.0f)) + pitch;
  elevation = std::clamp(elevation, -1.5f, 1.5f);  // never through the pole, where "up" flips
  offset = radius * glm::vec3(std::cos(elevation) * std::cos(azimuth), std::cos(elevation) * std::sin(azimuth),
                              std::sin(elevation));
  eye = target + offset;
}

void Camera::zoom(float factor) { eye = target + (eye - target) * std::clamp(factor, 0.05f, 20.0f); }

Camera cameraFraming(const glm::vec3& lo, const glm::vec3& hi, float fovYDegrees, float aspect) {
  Camera camera;
  camera.fovYDegrees = fovYDegrees;
  camera.target = 0.5f * (lo + hi);
  const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
  const glm::vec3 direction = glm::normalize(glm::vec3(-0.55f, -0.75f, 0.65f));
  // Far enough that the bounding sphere fits the narrower field of view; then closer, as
  // long as the box's eight corners stay inside the picture (flat maps fill far more of it).
  const float halfY = glm::radians(fovYDegrees) * 0.5f;
  const float halfX = std::atan(std::tan(halfY) * aspect);
  // The camera `d` away from the target along `direction`, its depth range around the box.
  auto placed = [&](float d) {
    Camera c = camera;
    c.eye = camera.target + direction * d;
    c.nearPlane = std::max(d - 2.0f * radius, d * 0.01f);
    c.farPlane = d + 2.0f * radius;
    return c;
  };
  auto fits = [&](float d) {
    const Camera c = placed(d);
    const glm::mat4 m = c.projection(aspect) * c.view();
    for (int k = 0; k < 8; ++k) {
      const glm::vec3 corner{k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
      const glm::vec4 clip = m * glm::vec4(corner, 1.0f);
      if (clip.w <= 0.0f || std::abs(clip.x) > 0.92f * clip.w || std::abs(clip.y) > 0.92f * clip.w) return false;
    }
    return true;
  };
  float distance = radius / std::sin(std::min(halfX, halfY));
  for (int i = 0; i < 24 && fits(distance * 0.9f); ++i) distance *= 0.9f;
  return placed(distance);
}

}  // namespace voxen

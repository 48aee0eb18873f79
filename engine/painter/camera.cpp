#include "voxen/engine/painter/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace voxen::painter {

glm::mat4 Camera::view() const { return glm::lookAtRH(eye, target, up); }

glm::mat4 Camera::projection(float aspect) const {
  glm::mat4 p = glm::perspectiveRH_ZO(glm::radians(fovYDegrees), aspect, nearPlane, farPlane);
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
  return {eye, glm::normalize(b - a)};
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

Camera cameraFraming(const glm::vec3& lo, const glm::vec3& hi, float fovYDegrees) {
  Camera camera;
  camera.fovYDegrees = fovYDegrees;
  camera.target = 0.5f * (lo + hi);
  const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
  // Far enough that the bounding sphere fits the vertical field of view.
  const float distance = radius / std::sin(glm::radians(fovYDegrees) * 0.5f);
  const glm::vec3 direction = glm::normalize(glm::vec3(-0.55f, -0.75f, 0.65f));
  camera.eye = camera.target + direction * distance;
  camera.nearPlane = std::max(distance - 2.0f * radius, distance * 0.01f);
  camera.farPlane = distance + 2.0f * radius;
  return camera;
}

}  // namespace voxen::painter

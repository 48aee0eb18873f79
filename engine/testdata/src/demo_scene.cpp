#include "voxen/testdata/demo_scene.hpp"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

namespace voxen {

namespace {

float boxDistance(const glm::vec3& p, const glm::vec3& centre, const glm::vec3& half) {
  const glm::vec3 q = glm::abs(p - centre) - half;
  return glm::length(glm::max(q, glm::vec3(0.0f))) + std::min(std::max({q.x, q.y, q.z}), 0.0f);
}

}  // namespace

DensityGrid demoScene(uint32_t size) {
  DensityGrid grid(size, size, size);
  const float n = float(size);
  struct Shape {
    uint32_t color;
    float (*distance)(const glm::vec3&, float);
  };
  const Shape shapes[] = {
      {0xff5a8c64u, [](const glm::vec3& p, float s) { return p.z - 0.18f * s; }},  // ground
      {0xffd08040u, [](const glm::vec3& p, float s) { return glm::length(p - glm::vec3(0.5f * s, 0.5f * s, 0.38f * s)) - 0.2f * s; }},
      {0xff4060c8u, [](const glm::vec3& p, float s) { return boxDistance(p, {0.22f * s, 0.25f * s, 0.28f * s}, glm::vec3(0.08f * s)); }},
      {0xffc0c0c0u, [](const glm::vec3& p, float s) { return boxDistance(p, {0.78f * s, 0.7f * s, 0.3f * s}, {0.06f * s, 0.12f * s, 0.12f * s}); }},
  };
  for (uint32_t z = 1; z + 1 < size; ++z)
    for (uint32_t y = 1; y + 1 < size; ++y)
      for (uint32_t x = 1; x + 1 < size; ++x) {
        const glm::vec3 p{float(x), float(y), float(z)};
        float best = 1e9f;
        uint32_t color = 0;
        for (const Shape& shape : shapes) {
          const float d = shape.distance(p, n);
          if (d < best) best = d, color = shape.color;
        }
        const size_t i = grid.index(x, y, z);
        grid.density[i] = std::clamp(0.5f - 0.5f * best, 0.0f, 1.0f);  // the brush's two-voxel ramp
        grid.color[i] = color;
      }
  return grid;
}

}  // namespace voxen

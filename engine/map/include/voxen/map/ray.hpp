#pragma once
// Sensor rays as Voxen takes them: where the sensor was, where the return landed, when.
#include <glm/vec3.hpp>

#include <cstdint>

namespace voxen {

struct Ray {
  glm::dvec3 origin{0.0};
  glm::dvec3 sample{0.0};
  double time = 0.0;
  // Return intensity as the sensor reports it (PLY `intensity`, 0 when absent): NDT-TM keeps
  // each voxel's intensity mean and variance.
  float intensity = 0.0f;
};

}  // namespace voxen

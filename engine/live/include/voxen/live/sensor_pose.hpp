#pragma once
// The sensor's pose in the map's fixed frame, as a live source reports it and a publisher
// sends it: p_fixed = orientation * p_sensor + position.
#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

namespace voxen::live {

struct SensorPose {
  glm::dvec3 position{0.0};
  glm::dquat orientation{1.0, 0.0, 0.0, 0.0};
};

}  // namespace voxen::live

#include "scene_setup.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "arm_forest.hpp"

namespace transform_scene {

namespace {

voxen::DeviceOptions deviceOptions(const SceneOptions& o, std::vector<std::string> instanceExtensions,
                                   std::vector<std::string> deviceExtensions) {
  voxen::DeviceOptions options;
  options.selector = o.device;
  options.validation = o.validation;
  options.instanceExtensions = std::move(instanceExtensions);
  options.deviceExtensions = std::move(deviceExtensions);
  return options;
}

}  // namespace

SceneGpu::SceneGpu(const SceneOptions& options, std::vector<std::string> instanceExtensions,
                   std::vector<std::string> deviceExtensions)
    : device(deviceOptions(options, std::move(instanceExtensions), std::move(deviceExtensions))),
      library(device),
      scheduler(device, library) {
  std::cerr << "transform_scene: device " << device.info().name << (device.validationEnabled() ? " (validation on)" : "")
            << "\n";
}

voxen::Camera orbitCamera(const ArmForest& forest, float angle, float distance) {
  const glm::vec3 lo = forest.fieldMin(), hi = forest.fieldMax();
  const glm::vec3 centre(0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.0f);
  const float size = std::max(hi.x - lo.x, hi.y - lo.y);
  voxen::Camera camera;
  const float away = distance * size;
  camera.eye = centre + glm::vec3(std::cos(angle) * away, std::sin(angle) * away, 0.45f * away + hi.z);
  camera.target = centre + glm::vec3(0.0f, 0.0f, 0.3f * hi.z);
  camera.fovYDegrees = 50.0f;
  camera.nearPlane = 0.1f;
  camera.farPlane = 4.0f * (away + size) + 100.0f;
  return camera;
}

}  // namespace transform_scene

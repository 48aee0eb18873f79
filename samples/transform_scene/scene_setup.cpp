#include "scene_setup.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "arm_forest.hpp"

namespace transform_scene {

SceneGpu::SceneGpu(const SceneOptions& options, std::vector<std::string> instanceExtensions,
                   std::vector<std::string> deviceExtensions)
    : SampleGpu("transform_scene",
                voxen_samples::sampleDeviceOptions(options.device, options.validation, std::move(instanceExtensions),
                                                   std::move(deviceExtensions)),
                voxen::ShaderLibraryOptions{.hotReloadDir = options.hotReloadDir
                                                                ? std::optional<std::filesystem::path>(*options.hotReloadDir)
                                                                : std::nullopt}) {}

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

#pragma once
// What both modes build from the command line: the device (validation, device choice, a
// window's extensions), the shader library and scheduler on it, and the camera that orbits
// the field.
#include <string>
#include <vector>

#include "sample_common/sample_gpu.hpp"
#include "scene_options.hpp"
#include "voxen/painter/camera.hpp"

namespace transform_scene {

class ArmForest;

// SampleGpu (samples/common) for --device and --validation, on the embedded shaders or, with
// --hot-reload, on the shader folder, watched for edits.
struct SceneGpu : voxen_samples::SampleGpu {
  SceneGpu(const SceneOptions& options, std::vector<std::string> instanceExtensions = {},
           std::vector<std::string> deviceExtensions = {});
};

// The camera at `angle` (radians) around the field's centre, `distance` field sizes away,
// looking down at the centre: the near arms fall below the view and the far ones beyond its
// sides, so part of the forest is always culled.
voxen::Camera orbitCamera(const ArmForest& forest, float angle, float distance);

}  // namespace transform_scene

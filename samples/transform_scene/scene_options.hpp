#pragma once
// The transform_scene command line (CLI11): the scene, the camera, then the headless and the
// windowed mode. parseSceneOptions throws UsageError with a message naming the flag, or
// HelpRequested carrying the help text.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sample_common/usage_errors.hpp"

namespace transform_scene {

using voxen_samples::HelpRequested;
using voxen_samples::UsageError;

// Culling's indirect command covers at most 65,535 workgroups of 64 (lavapipe's x limit).
constexpr uint64_t kMaxNodes = 4000000;

struct SceneOptions {
  // The scene.
  uint32_t arms = 2000, depth = 5, fingers = 3;
  double dt = 1.0 / 30.0;     // animation seconds per frame (headless; the window uses the clock)
  // The camera orbits the field's centre; 0 keeps it still.
  float orbitSpeed = 0.15f;   // radians per second of animation time
  float distance = 0.45f;     // from the centre, in field sizes
  uint32_t width = 640, height = 480;
  std::string device;
  bool validation = false;
  // Hot reload of the shaders from this folder (--hot-reload[=DIR]; a bare flag resolves to
  // the source tree's shaders/ or a bundle's copy while parsing); unset: the embedded shaders,
  // unless VOXEN_SHADER_DIR names a folder.
  std::optional<std::string> hotReloadDir;

  // Headless.
  bool headless = false;
  uint32_t frames = 60;
  std::string output;         // PNG frames go here (optional)
  uint32_t every = 1;         // write every Nth frame (and the last)
  bool json = false;
  bool verify = false;        // check every frame against the CPU (frame_check.hpp)

  // Window.
  uint64_t exitAfter = 0;     // frames; 0: until the window closes
  std::string screenshot;     // PNG of the last frame (needs --exit-after)
  bool vsync = true;
};

SceneOptions parseSceneOptions(const std::vector<std::string>& args);

}  // namespace transform_scene

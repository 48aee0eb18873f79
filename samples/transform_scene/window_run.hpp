#pragma once
#include "scene_options.hpp"

namespace transform_scene {

// The scene in a GLFW window (samples/common's window, swapchain and presenter), animated
// by the clock. Returns the exit status: 0, or 3 when the validation layer reported anything.
int runWindow(const SceneOptions& options);

}  // namespace transform_scene

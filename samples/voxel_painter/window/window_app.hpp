#pragma once
#include "app_options.hpp"

namespace voxel_painter {

// The interactive painter: a GLFW window presenting each frame through a swapchain on the
// painter's own device, with mouse and key controls (InputController), optional scripted
// input and a screenshot at exit. Returns the process exit status.
int runWindow(const AppOptions& options);

}  // namespace voxel_painter

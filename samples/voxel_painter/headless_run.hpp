#pragma once
#include "app_options.hpp"

namespace voxel_painter {

// Replays a stroke script without a window, writes PNG frames and prints a frame-time
// summary. Returns the process exit status.
int runHeadless(const AppOptions& options);

}  // namespace voxel_painter

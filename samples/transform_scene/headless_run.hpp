#pragma once
#include "scene_options.hpp"

namespace transform_scene {

// Renders --frames frames with a fixed animation step, writes PNGs to --output, checks each
// frame with --verify, and prints the summary. Returns the exit status: 0, or 3 when the
// validation layer reported anything.
int runHeadless(const SceneOptions& options);

}  // namespace transform_scene

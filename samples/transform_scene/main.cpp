// transform_scene: thousands of articulated arms (base -> segments -> hand -> fingers) whose
// joints are animated every frame, their world matrices processed level by level on the GPU
// (voxen's transform tree), culled against the camera on the device, and drawn as boxes by
// the painter's software rasterizer, with no trip through the CPU between those passes.
// A window by default; --headless writes PNG frames and a summary. README.md has the rest.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "frame_check.hpp"
#include "headless_run.hpp"
#include "scene_options.hpp"
#include "voxen/atomic_file/output_file.hpp"
#include "window_run.hpp"

int main(int argc, char** argv) {
  using namespace transform_scene;
  voxen::removeTemporaryFilesOnSignals();  // ^C during a PNG save leaves no temporary file
  SceneOptions options;
  try {
    options = parseSceneOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const HelpRequested& help) {
    std::fputs(help.what(), stdout);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "transform_scene: %s\nRun 'transform_scene --help' for the options.\n", e.what());
    return 2;
  }
  try {
    return options.headless ? runHeadless(options) : runWindow(options);
  } catch (const CheckFailed& e) {
    std::fprintf(stderr, "transform_scene: verification failed: %s\n", e.what());
    return 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transform_scene: %s\n", e.what());
    return 1;
  }
}

// voxel_painter: paint a voxel density grid with a spherical brush; marching cubes and a
// software rasterizer on the GPU (voxen's painter). Interactive in a window by default;
// --headless replays a stroke script into PNG frames with a frame-time summary.
// Usage and the script formats: README.md in this folder.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app_options.hpp"
#include "headless_run.hpp"
#include "text_parsing.hpp"
#include "window_app.hpp"

int main(int argc, char** argv) {
  using namespace voxel_painter;
  AppOptions options;
  try {
    options = parseAppOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    if (*e.what()) std::fprintf(stderr, "voxel_painter: %s\n", e.what());
    std::fputs(usageText(), *e.what() ? stderr : stdout);
    return *e.what() ? 2 : 0;
  }
  try {
    return options.headless ? runHeadless(options) : runWindow(options);
  } catch (const ScriptError& e) {
    std::fprintf(stderr, "voxel_painter: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "voxel_painter: %s\n", e.what());
    return 1;
  }
}

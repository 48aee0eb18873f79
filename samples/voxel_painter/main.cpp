// voxel_painter: paint a voxel density grid with a spherical brush; marching cubes and a
// software rasterizer on the GPU (voxen's painter). Interactive in a window by default;
// --headless replays a stroke script into PNG frames with a frame-time summary.
// Usage and the script formats: README.md in this folder; the options: --help.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app_options.hpp"
#include "headless_run.hpp"
#include "text_parsing.hpp"
#include "voxen/atomic_file/output_file.hpp"
#include "window/window_app.hpp"

int main(int argc, char** argv) {
  using namespace voxel_painter;
  voxen::removeTemporaryFilesOnSignals();  // ^C during a PNG save leaves no temporary file
  AppOptions options;
  try {
    options = parseAppOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const HelpRequested& help) {
    std::fputs(help.what(), stdout);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "voxel_painter: %s\nRun 'voxel_painter --help' for the options.\n", e.what());
    return 2;
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

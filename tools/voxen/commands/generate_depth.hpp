#pragma once
// `voxen generate --depth-recording OUT.bag|OUT.mcap|FOLDER/ [--truth-mesh OUT.ply]`: a depth
// camera's walk through the synthetic scene (voxen/testdata/depth_recording.hpp) and the
// scene's true surface as a PLY mesh, for the TSDF's tests. generate_command.cpp adds these
// options to `voxen generate` and hands the run here when any of them is given.
#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "voxen/testdata/depth_camera.hpp"

namespace voxen::cli {

struct DepthGenerateArgs {
  std::string recording, truthMesh;
  DepthCameraConfig camera;
  std::vector<CLI::Option*> depthOnly;  // given: the run is a depth run
  std::vector<CLI::Option*> lidarOnly;  // refused in a depth run
  CLI::Option *speed = nullptr, *height = nullptr, *rate = nullptr;  // the lidar's: given or not
};

// What the depth run shares with the lidar's options (--seed, --scene, --speed, --height,
// --rate, --start-time, --threads, --recording-compression); speed, height and rate count only
// where given (DepthGenerateArgs knows which), else the camera's defaults hold.
struct SharedGenerateValues {
  uint64_t seed = 1;
  std::string scene, compression;
  double speed = 0.0, height = 0.0, rate = 0.0, startTime = 0.0;
  unsigned threads = 0;
};

// Adds the depth options; call after the lidar's, whose flags it looks up to refuse them.
void addDepthGenerateOptions(CLI::App& command, DepthGenerateArgs& args);
bool isDepthRun(const DepthGenerateArgs& args);
int generateDepth(const CommonOptions& options, const DepthGenerateArgs& args, const SharedGenerateValues& shared);

}  // namespace voxen::cli

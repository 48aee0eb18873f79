#include "headless_run.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>

#include "arm_forest.hpp"
#include "frame_check.hpp"
#include "sample_common/png_frames.hpp"
#include "scene_renderer.hpp"
#include "scene_setup.hpp"
#include "scene_stats.hpp"
#include "voxen/atomic_file/output_file.hpp"

namespace transform_scene {

using namespace voxen;

using voxen_samples::framePath;

int runHeadless(const SceneOptions& options) {
  // A bad output folder fails now, not after the device and the scene are built.
  if (!options.output.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.output, error);
    if (error) throw std::runtime_error("--output " + options.output + ": " + error.message());
    checkOutputPath(framePath(options.output, 0).string());
  }
  SceneGpu gpu(options);
  TransformTree tree;
  ArmForest forest(tree, {options.arms, options.depth, options.fingers});
  SceneRenderer renderer(gpu.scheduler, tree, forest, {options.width, options.height, options.verify});
  gpu.scheduler.finish();
  gpu.scheduler.resetProfile();  // time the frames, not the scene's upload

  std::vector<FrameRecord> records;
  RunInfo info{gpu.device.info().name, options.arms, options.depth, options.fingers, options.width, options.height,
               tree.size(), 0, options.verify};
  for (uint32_t frame = 0; frame < options.frames; ++frame) {
    const double seconds = frame * options.dt;
    const Camera camera = orbitCamera(forest, float(seconds) * options.orbitSpeed, options.distance);
    // Each frame is waited for, so its time is the whole latency of a frame, the host's
    // animation of every joint included.
    const auto start = std::chrono::steady_clock::now();
    forest.animate(seconds);
    renderer.frame(camera);
    gpu.scheduler.finish();
    FrameRecord record;
    record.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (options.verify) {
      const FrameCheck check = checkFrame(frame, renderer, tree, renderer.backgroundColor());
      record.visible = check.visible;
      record.culled = check.culled;
      record.drawnNodes = check.drawnNodes;
    } else {
      record.visible = renderer.readVisibleCount();
      record.culled = uint32_t(tree.size() - record.visible);
    }
    records.push_back(record);
    const bool last = frame + 1 == options.frames;
    if (!options.output.empty() && (frame % options.every == 0 || last)) {
      voxen_samples::writeRgbaPng(framePath(options.output, frame), options.width, options.height,
                                  renderer.readImage().get());
      ++info.pngsWritten;
    }
  }
  if (options.json)
    std::cout << statsJson(info, records, gpu.scheduler.profile()) << "\n";
  else
    std::cout << statsText(info, records, gpu.scheduler.profile());
  if (const uint64_t messages = gpu.validationMessages()) {
    std::cerr << "transform_scene: " << messages << " validation message(s)\n";
    return 3;
  }
  return 0;
}

}  // namespace transform_scene

#include "headless_run.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>

#include "frame_stats.hpp"
#include "gpu_context.hpp"
#include "initial_scene.hpp"
#include "sample_common/png_frames.hpp"
#include "stroke_script.hpp"

namespace voxel_painter {

using namespace voxen;

using voxen_samples::framePath;

int runHeadless(const AppOptions& options) {
  // Check the whole script before paying for the device.
  const StrokeScript script = loadStrokeScript(options.script);
  checkScriptFitsFrame(script, options.width, options.height);
  if (!options.framesDir.empty()) std::filesystem::create_directories(options.framesDir);

  GpuContext gpu(options, /*hotReloadByDefault=*/false);
  Painter painter(gpu.scheduler, painterOptions(options.width, options.height));
  loadInitialScene(painter);
  gpu.scheduler.finish();
  gpu.scheduler.resetProfile();  // time the frames, not the scene upload

  Camera camera = homeCamera();
  ScriptPlayer player(script, options.width, options.height);
  const uint64_t totalFrames = script.totalFrames();
  FrameTimes times;
  uint64_t frame = 0, pngs = 0, strokes = 0, brushSamples = 0;
  std::optional<Stroke> stroke;
  while (player.next(camera, stroke)) {
    // Each frame is waited for, so its time is the whole latency of one frame.
    const auto start = std::chrono::steady_clock::now();
    painter.frame(camera, stroke ? &*stroke : nullptr);
    gpu.scheduler.finish();
    times.add(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (stroke) {  // outside the timed part: reading the counters is a readback of its own
      ++strokes;
      brushSamples += painter.readCounters().brushVoxels;
    }
    const bool last = frame + 1 == totalFrames;
    if (!options.framesDir.empty() && (frame % options.every == 0 || last)) {
      voxen_samples::writeRgbaPng(framePath(options.framesDir, frame), painter.options().width, painter.options().height,
                                  painter.readImage().get());
      ++pngs;
    }
    ++frame;
  }
  const FrameCounters counters = painter.readCounters();

  FrameSummary summary = times.summarize(gpu.scheduler.profile());
  summary.pngsWritten = pngs;
  summary.strokes = strokes;
  summary.brushSamples = brushSamples;
  summary.triangles = counters.triangles;
  summary.overflowTriangles = counters.overflowTriangles;
  if (options.json)
    std::cout << summaryJson(summary) << "\n";
  else
    std::cout << summaryText(summary);
  if (const uint64_t messages = gpu.validationMessages()) {
    std::cerr << "voxel_painter: " << messages << " validation message(s)\n";
    return 3;
  }
  return 0;
}

}  // namespace voxel_painter

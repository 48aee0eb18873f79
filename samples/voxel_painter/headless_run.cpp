#include "headless_run.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "frame_stats.hpp"
#include "gpu_context.hpp"
#include "initial_scene.hpp"
#include "stroke_script.hpp"
#include "voxen/io/png_writer.hpp"

namespace voxel_painter {

using namespace voxen;

namespace {

std::filesystem::path framePath(const std::string& dir, uint64_t frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05llu.png", (unsigned long long)frame);
  return std::filesystem::path(dir) / name;
}

void writeFrame(Painter& painter, const std::filesystem::path& path) {
  const std::vector<uint32_t> pixels = painter.readImage().get();
  std::vector<uint8_t> bytes(pixels.size() * 4);
  std::memcpy(bytes.data(), pixels.data(), bytes.size());  // RGBA8 with red in the low byte: byte order R, G, B, A
  voxen::writePng(path, painter.options().width, painter.options().height, bytes, voxen::PngFormat::Rgba8);
}

}  // namespace

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
      writeFrame(painter, framePath(options.framesDir, frame));
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

// `voxen bench paint [--width W --height H] [--frames N] [--json]`: the voxel painter's
// frame on this device. A 128^3 scene is painted and erased every frame while the camera
// orbits; each frame runs every phase (brush, incremental meshing, rasterization, resolve).
// Reported per resolution: frames/s, frame time and each phase's GPU time, the mesh's
// triangles, the software rasterizer's triangles/s beside Vulkan's graphics pipeline drawing
// the same mesh on the same device, and the CPU references (full re-mesh, CPU rasterizer)
// measured in the same run. Defaults: 640x480 and 1920x1080, plus 2560x1140 off lavapipe.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "stopwatch.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "report/text_format.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/testdata/demo_scene.hpp"
#include "voxen/painter/hardware_rasterizer.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

namespace {

using gpu::FrameConstants;
using gpu::Triangle;

struct PaintRun {
  uint32_t width = 0, height = 0, frames = 0;
  double frameMs = 0, fps = 0;
  std::map<std::string, double> phaseMs;  // mean GPU ms per frame
  uint32_t triangles = 0, drawnTriangles = 0;
  double swTrianglesPerS = 0, hwTrianglesPerS = 0;
  bool hwTimestamps = false;
  double cpuMeshMs = 0, cpuRasterMs = 0, cpuRasterTrianglesPerS = 0;
  std::vector<Triangle> mesh;  // the last frame's, for the graphics pipeline
  float viewProj[16] = {};
  bool cullBackFaces = true;
};

// The run's last mesh drawn by Vulkan's graphics pipeline on the same device.
void timeGraphicsPipeline(Scheduler& scheduler, PaintRun& run) {
  try {
    Buffer triangles(scheduler.device(), "bench paint mesh", std::max<size_t>(run.mesh.size(), 1) * sizeof(Triangle));
    scheduler.upload(triangles.range(), run.mesh.data(), run.mesh.size() * sizeof(Triangle));
    scheduler.finish();
    HardwareRasterizer hardware(scheduler.device(), run.width, run.height);
    const HardwareRasterizer::Timing timing =
        hardware.timeDraws(triangles.range(), uint32_t(run.mesh.size()), run.viewProj, run.cullBackFaces, 10);
    run.hwTrianglesPerS = timing.trianglesPerSecond;
    run.hwTimestamps = timing.gpuTimestamps;
  } catch (const Error& e) {
    std::fprintf(stderr, "voxen bench paint: no graphics-pipeline comparison at %ux%u: %s\n", run.width, run.height, e.what());
  }
}

// The stroke of frame k: alternately adds and erases along a circle of pixels around the
// screen's centre, so each frame changes the surface and re-meshes a few blocks.
Stroke strokeOfFrame(const Camera& camera, uint32_t k, uint32_t width, uint32_t height) {
  const float angle = 0.37f * float(k);
  const float x = float(width) * (0.5f + 0.18f * std::cos(angle)), y = float(height) * (0.55f + 0.15f * std::sin(angle));
  const Ray3 ray = camera.rayThroughPixel(x, y, width, height);
  Stroke stroke;
  stroke.operation = (k / 4) % 2 ? BrushMode::Erase : BrushMode::Add;
  stroke.origin = ray.origin;
  stroke.direction = ray.direction;
  stroke.radius = 5.0f;
  stroke.color = k % 3 == 0 ? 0xff2060e0u : (k % 3 == 1 ? 0xffe0a020u : 0xff40c040u);
  return stroke;
}

PaintRun runPaint(Scheduler& scheduler, const DensityGrid& scene, uint32_t width, uint32_t height, uint32_t frames) {
  PaintRun run;
  run.width = width, run.height = height, run.frames = frames;
  PainterOptions options;
  options.gridX = scene.nx, options.gridY = scene.ny, options.gridZ = scene.nz;
  options.width = width, options.height = height;
  Painter painter(scheduler, options);
  painter.setGrid(scene.density, scene.color);
  Camera camera = cameraFraming(glm::vec3(0.0f), glm::vec3(float(scene.nx - 1)));
  // Warm-up: pipelines compile at their first dispatch, and the first frame meshes every block.
  painter.frame(camera);
  painter.readCounters();
  scheduler.resetProfile();

  const auto start = Clock::now();
  for (uint32_t k = 0; k < frames; ++k) {
    camera.orbit(0.02f, 0.0f);
    const Stroke stroke = strokeOfFrame(camera, k, width, height);
    painter.frame(camera, &stroke);
  }
  scheduler.finish();
  const double seconds = secondsSince(start);
  run.frameMs = 1e3 * seconds / frames;
  run.fps = frames / seconds;
  for (const auto& [name, timing] : scheduler.profile().passes())
    if (timing.calls > 0) run.phaseMs[name] = timing.totalMs / frames;
  const FrameCounters counters = painter.readCounters();
  run.triangles = counters.triangles;
  run.drawnTriangles = counters.drawnTriangles;
  const double rasterMs = run.phaseMs["painter raster small"] + run.phaseMs["painter raster large"];
  if (rasterMs > 0) run.swTrianglesPerS = counters.triangles / (rasterMs * 1e-3);

  // Kept for the graphics-pipeline comparison, which runs after every software run: on
  // lavapipe the scheduler's timestamps read near zero after another command buffer drew
  // on the queue, so the draws must not come between the frames being profiled.
  run.mesh = painter.readTriangles().get();
  run.mesh.resize(counters.triangles);
  const glm::mat4 viewProj = camera.viewProj(width, height);
  std::copy(&viewProj[0][0], &viewProj[0][0] + 16, run.viewProj);
  run.cullBackFaces = options.cullBackFaces;

  // CPU references in the same run: a full re-mesh of the painted grid and the CPU
  // rasterizer drawing the frame's mesh.
  DensityGrid grid(scene.nx, scene.ny, scene.nz);
  grid.density = painter.readDensity().get();
  grid.color = painter.readColors().get();
  auto t = Clock::now();
  const std::vector<Triangle> mesh = meshGrid(grid);
  run.cpuMeshMs = 1e3 * secondsSince(t);
  const FrameConstants frame = viewConstants(options, camera);
  t = Clock::now();
  rasterizeReference(mesh, frame);
  run.cpuRasterMs = 1e3 * secondsSince(t);
  run.cpuRasterTrianglesPerS = mesh.size() / (run.cpuRasterMs * 1e-3);
  return run;
}

Json phasesJson(const std::map<std::string, double>& phases) {
  Json object = Json::object();
  for (const auto& [name, ms] : phases) object[name] = rounded(ms, 6);
  return object;
}

Json runJson(const PaintRun& r) {
  return {{"width", r.width},
          {"height", r.height},
          {"frames", r.frames},
          {"fps", rounded(r.fps, 2)},
          {"frame_ms", rounded(r.frameMs, 4)},
          {"phases_ms", phasesJson(r.phaseMs)},
          {"triangles", r.triangles},
          {"drawn_triangles", r.drawnTriangles},
          {"sw_triangles_per_s", rounded(r.swTrianglesPerS, 1)},
          {"hw_triangles_per_s", rounded(r.hwTrianglesPerS, 1)},
          {"hw_gpu_timestamps", r.hwTimestamps},
          {"cpu_mesh_ms", rounded(r.cpuMeshMs, 3)},
          {"cpu_raster_ms", rounded(r.cpuRasterMs, 3)},
          {"cpu_raster_triangles_per_s", rounded(r.cpuRasterTrianglesPerS, 1)}};
}

struct BenchPaintArgs {
  uint32_t width = 0, height = 0;  // 0: the default sizes
  uint32_t frames = 0;             // 0: 30 on a CPU driver, 500 otherwise
};

int benchPaint(const CommonOptions& options, const BenchPaintArgs& args) {
  std::vector<std::pair<uint32_t, uint32_t>> sizes;
  const uint32_t width = args.width, height = args.height;
  uint32_t frames = args.frames;
  if ((width == 0) != (height == 0)) throw UsageError("bench paint: give --width and --height together");

  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  const bool cpuDriver = device.info().isLavapipe();
  if (width) sizes = {{width, height}};
  else sizes = cpuDriver ? std::vector<std::pair<uint32_t, uint32_t>>{{640, 480}, {1920, 1080}}
                         : std::vector<std::pair<uint32_t, uint32_t>>{{640, 480}, {1920, 1080}, {2560, 1140}};
  if (frames == 0) frames = cpuDriver ? 30 : 500;

  const DensityGrid scene = demoScene(128);
  std::vector<PaintRun> runs;
  for (const auto& [w, h] : sizes) runs.push_back(runPaint(scheduler, scene, w, h, frames));
  for (PaintRun& run : runs) timeGraphicsPipeline(scheduler, run);

  if (options.json) {
    const PaintRun& first = runs.front();
    printJson(benchSummary(device, {{"grid", 128},
                                    {"fps", rounded(first.fps, 2)},
                                    {"frame_ms", rounded(first.frameMs, 4)},
                                    {"phases_ms", phasesJson(first.phaseMs)},
                                    {"triangles", first.triangles},
                                    {"sw_triangles_per_s", rounded(first.swTrianglesPerS, 1)},
                                    {"hw_triangles_per_s", rounded(first.hwTrianglesPerS, 1)},
                                    {"runs", jsonArray(runs, runJson)}}));
    return 0;
  }
  std::printf("voxen bench paint on %s (%s): 128^3 grid, a brush stroke every frame, camera orbiting\n\n",
              device.info().name.c_str(), device.info().driverName.c_str());
  for (const PaintRun& r : runs) {
    std::printf("%u x %u, %u frames: %.2f frames/s, %.3f ms per frame, %s triangles (%s drawn)\n", r.width, r.height,
                r.frames, r.fps, r.frameMs, withCommas(r.triangles).c_str(), withCommas(r.drawnTriangles).c_str());
    const TextTable phases({{"phase", 28, Align::Left}, {"GPU ms", 10}}, "  ");
    phases.printHead();
    for (const auto& [name, ms] : r.phaseMs) phases.printRow({name, fixed(ms, 3)});
    const TextTable rates({{"", 40, Align::Left}, {"", 14}}, "  ");
    rates.printRow({"software rasterizer triangles/s", general(r.swTrianglesPerS, 4)});
    rates.printRow({"graphics pipeline triangles/s", general(r.hwTrianglesPerS, 4)}, r.hwTimestamps ? "" : " (wall clock)");
    rates.printRow({"CPU reference rasterizer triangles/s", general(r.cpuRasterTrianglesPerS, 4)},
                   "  (" + fixed(r.cpuRasterMs, 2) + " ms for the mesh)");
    rates.printRow({"CPU reference full re-mesh", fixed(r.cpuMeshMs, 3)},
                   " ms  (GPU: mesh list + count + scan + copy + emit, changed blocks only)\n");
  }
  return 0;
}

CommandRun setupBenchPaint(CLI::App& command) {
  auto args = std::make_shared<BenchPaintArgs>();
  command.add_option("--width", args->width, "frame width (with --height; default: 640x480, 1920x1080 and, off lavapipe, 2560x1140)")
      ->check(integerIn(16, 8192));
  command.add_option("--height", args->height, "frame height (with --width)")->check(integerIn(16, 8192));
  command.add_option("--frames", args->frames, "frames per size (default: 30 on a CPU driver, 500 otherwise)")
      ->check(integerIn(1, 100000));
  return [args](const CommonOptions& options) { return benchPaint(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench paint", "voxel painter frame, software vs graphics-pipeline rasterizer",
                                        &setupBenchPaint,
                                        Uses::Gpu | Uses::ProfileAlways | Uses::Json};

}  // namespace voxen::cli

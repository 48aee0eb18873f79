// `voxen bench frames`: occupancy per lidar frame, the figure nvblox and voxblox users
// compare. A generated run of 64 x 1024 scans (65,536 rays each) is integrated one scan at a
// time: the GPU path integrates the frame and waits until it is in the map on the GPU
// (GpuIntegrator::sync(): nothing is copied back to the host) before the next frame starts;
// the CPU reference (CpuIntegrator, one thread) integrates the same frames. Reported per
// resolution (0.05, 0.1 and 0.2 m by default): milliseconds per frame, the median over the
// frames (and their 90th percentile), GPU beside CPU, and the GPU passes' own time per frame.
// Rays are prepared by GpuIntegrator::integrate(span) (the calling thread and helpers, one
// chunk of 16,384 rays each, GpuIntegratorOptions::spanPrepareThreads), as a program handing
// over each scan as it arrives would.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "stopwatch.hpp"
#include "report/text_format.hpp"
#include "residency_lookup_option.hpp"
#include "update_order_option.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

constexpr uint64_t kCacheBytes = 512ull << 20;  // the GPU path's region cache

struct BenchFramesArgs {
  int frames = 20;
  std::vector<double> resolutions{0.05, 0.1, 0.2};
  UpdateOrder order = UpdateOrder::Sequential;
  std::string model = "ohm";
  double speed = LidarConfig().speed;
  ResidencyLookup lookup = ResidencyLookup::Adaptive;
};

HostStageTimes stageDifference(const HostStageTimes& after, const HostStageTimes& before) {
  HostStageTimes d;
  d.prepareSeconds = after.prepareSeconds - before.prepareSeconds;
  d.discoverySeconds = after.discoverySeconds - before.discoverySeconds;
  d.residencySeconds = after.residencySeconds - before.residencySeconds;
  d.uploadSeconds = after.uploadSeconds - before.uploadSeconds;
  return d;
}

// The value below which `fraction` of the values lie (nearest rank).
double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t rank = size_t(std::ceil(fraction * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

struct FrameRun {
  double resolution = 0;
  std::vector<double> gpuMs, cpuMs, passMs;  // per frame
  // Per frame, the host's share of gpuMs: wall time in integrate() (rays prepared and handed
  // over, batches closed) and in sync() (waiting for discovery, placing regions, the last
  // submit and the wait for the GPU); the integration thread's CPU time by stage; the
  // scheduler's submissions and the host's waits for the staging ring.
  std::vector<double> integrateMs, syncMs, submissions, stagingWaits;
  std::vector<HostStageTimes> hostStages;
  double finishMs = 0;                       // the copy back after the last frame (not per frame)
  IntegrationStats gpu, cpu;
  double classAgreement = 0;
  size_t regions = 0;
};

FrameRun runFrames(Scheduler& scheduler, const std::vector<Ray>& rays, size_t perFrame, const OccupancyModel& model,
                   const IntegrationOptions& integration, ResidencyLookup lookup) {
  FrameRun run;
  run.resolution = model.resolution;
  OccupancyMap gpuMap(model), cpuMap(model);
  {
    GpuIntegrator gpu(scheduler, gpuMap, integration,
                      {.cacheBytes = kCacheBytes, .maxRaysPerBatch = uint32_t(perFrame), .residencyLookup = lookup});
    for (size_t i = 0; i < rays.size(); i += perFrame) {
      const auto frame = std::span<const Ray>(rays).subspan(i, std::min(perFrame, rays.size() - i));
      scheduler.resetProfile();
      const SchedulerStats before = scheduler.stats();
      const HostStageTimes stagesBefore = gpu.hostStageTimes();
      const auto start = Clock::now();
      gpu.integrate(frame);
      const double integrated = secondsSince(start) * 1e3;
      gpu.sync();
      run.gpuMs.push_back(secondsSince(start) * 1e3);
      run.integrateMs.push_back(integrated);
      run.syncMs.push_back(run.gpuMs.back() - integrated);
      run.passMs.push_back(totalPassMs(scheduler.profile()));
      run.submissions.push_back(double(scheduler.stats().submissions - before.submissions));
      run.stagingWaits.push_back(double(scheduler.stats().stagingWaits - before.stagingWaits));
      run.hostStages.push_back(stageDifference(gpu.hostStageTimes(), stagesBefore));
    }
    const auto start = Clock::now();
    gpu.finish();
    run.finishMs = secondsSince(start) * 1e3;
    run.gpu = gpu.stats();
  }
  CpuIntegrator cpu(cpuMap, integration);
  for (size_t i = 0; i < rays.size(); i += perFrame) {
    const auto start = Clock::now();
    cpu.integrate(std::span<const Ray>(rays).subspan(i, std::min(perFrame, rays.size() - i)));
    run.cpuMs.push_back(secondsSince(start) * 1e3);
  }
  run.cpu = cpu.stats();
  run.classAgreement = classAgreement(gpuMap, cpuMap);
  run.regions = gpuMap.regions().size();
  return run;
}

// Per frame: the GPU path's wall time less its passes' GPU time, the part a faster GPU does
// not shorten (submission, waits, readbacks, the host's own stages).
std::vector<double> hostOverheadMs(const FrameRun& r) {
  std::vector<double> overhead(r.gpuMs.size());
  for (size_t i = 0; i < overhead.size(); ++i) overhead[i] = r.gpuMs[i] - r.passMs[i];
  return overhead;
}

double medianStageMs(const FrameRun& r, double HostStageTimes::*stage) {
  std::vector<double> ms;
  for (const HostStageTimes& t : r.hostStages) ms.push_back(t.*stage * 1e3);
  return median(ms);
}

Json hostJson(const FrameRun& r) {
  return {{"integrate_ms", rounded(median(r.integrateMs), 3)},
          {"sync_ms", rounded(median(r.syncMs), 3)},
          {"prepare_cpu_ms", rounded(medianStageMs(r, &HostStageTimes::prepareSeconds), 3)},
          {"discovery_cpu_ms", rounded(medianStageMs(r, &HostStageTimes::discoverySeconds), 3)},
          {"residency_cpu_ms", rounded(medianStageMs(r, &HostStageTimes::residencySeconds), 3)},
          {"upload_cpu_ms", rounded(medianStageMs(r, &HostStageTimes::uploadSeconds), 3)},
          {"submissions", median(r.submissions)},
          {"staging_waits", median(r.stagingWaits)}};
}

Json runJson(const FrameRun& r) {
  return {{"resolution", r.resolution},
          {"gpu_ms_per_frame", rounded(median(r.gpuMs), 3)},
          {"cpu_ms_per_frame", rounded(median(r.cpuMs), 3)},
          {"gpu_ms_per_frame_p90", rounded(percentile(r.gpuMs, 0.9), 3)},
          {"cpu_ms_per_frame_p90", rounded(percentile(r.cpuMs, 0.9), 3)},
          {"gpu_pass_ms_per_frame", rounded(median(r.passMs), 3)},
          {"host_overhead_ms_per_frame", rounded(median(hostOverheadMs(r)), 3)},
          {"host_per_frame", hostJson(r)},
          {"gpu_finish_ms", rounded(r.finishMs, 3)},
          {"gpu_ms_all", roundedList(r.gpuMs, 3)},
          {"cpu_ms_all", roundedList(r.cpuMs, 3)},
          {"voxel_updates", r.gpu.voxelUpdates},
          {"dropped_updates", r.gpu.droppedUpdates},
          {"regions", r.regions},
          {"class_agreement", rounded(r.classAgreement, 6)}};
}

int benchFrames(const CommonOptions& options, const BenchFramesArgs& args) {
  LidarConfig lidar;  // 64 rings x 1024 columns: 65,536 rays a frame
  lidar.scans = args.frames;
  lidar.speed = args.speed;
  try {
    checkMemoryBudget(uint64_t(lidar.rayCount()) * (sizeof(Ray) + 1) + kCacheBytes, options.memoryBudgetBytes(),
                      "--frames " + std::to_string(args.frames) + " of " + std::to_string(lidar.raysPerScan()) +
                          " rays held in memory beside the GPU cache",
                      options.memoryBudgetHint() + " or lower --frames");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  std::vector<uint8_t> noReturn;
  const std::vector<Ray> rays = generateLidarRays(SyntheticScene::generate(1), lidar, &noReturn);
  const size_t perFrame = lidar.raysPerScan();
  const IntegrationOptions integration{.order = args.order};

  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  {  // Compile the pipelines (lavapipe compiles at the first dispatch) outside the timing.
    OccupancyMap warm;
    GpuIntegrator gpu(scheduler, warm, integration);
    gpu.integrate(std::span<const Ray>(rays).first(std::min<size_t>(4096, rays.size())));
    gpu.finish();
  }
  std::vector<FrameRun> runs;
  for (double resolution : args.resolutions) {
    OccupancyModel model = args.model == "octomap" ? OccupancyModel::octomap() : OccupancyModel();
    model.resolution = resolution;
    runs.push_back(runFrames(scheduler, rays, perFrame, model, integration, args.lookup));
  }

  if (options.json) {
    printJson(benchSummary(device, {{"rays_per_frame", perFrame},
                                    {"frames", args.frames},
                                    {"rays", rays.size()},
                                    {"update_order", updateOrderName(args.order)},
                                    {"residency_lookup", residencyLookupName(args.lookup)},
                                    {"model", args.model},
                                    {"speed", args.speed},
                                    {"runs", jsonArray(runs, runJson)}}));
    return 0;
  }
  std::printf("voxen bench frames on %s (%s): synthetic lidar %d x %d, %d frames of %s rays at %.3g m/s, %s order, %s "
              "model; each frame integrated and waited for before the next; medians over the frames\n\n",
              device.info().name.c_str(), device.info().driverName.c_str(), lidar.rings, lidar.columns, args.frames,
              withCommas(perFrame).c_str(), args.speed, updateOrderName(args.order), args.model.c_str());
  const TextTable table({{"resolution", 10, Align::Left},
                         {"GPU ms/frame", 14},
                         {"GPU p90 ms", 14},
                         {"CPU ms/frame", 14},
                         {"speed-up", 10},
                         {"GPU passes ms", 16},
                         {"host ms", 10},
                         {"submits", 9},
                         {"agreement", 10}});
  table.printHead();
  for (const FrameRun& r : runs) {
    const double gpu = median(r.gpuMs), cpu = median(r.cpuMs);
    table.printRow({general(r.resolution, 3), fixed(gpu, 2), fixed(percentile(r.gpuMs, 0.9), 2), fixed(cpu, 2),
                    fixed(gpu > 0 ? cpu / gpu : 0.0, 2, "x"), fixed(median(r.passMs), 2),
                    fixed(median(hostOverheadMs(r)), 2), general(median(r.submissions), 3), percent(r.classAgreement, 4)});
  }
  std::printf("\nGPU ms/frame: from handing the frame's rays over until the GPU has integrated them (prepared by the\n"
              "calling thread and helper threads, a chunk of 16,384 rays each; nothing copied back); GPU passes: the passes' own GPU time in that frame; CPU: the\n"
              "single-threaded CPU reference on the same frame. host ms: GPU ms/frame less the passes (the part a faster\n"
              "GPU does not shorten: the host's own stages, submissions, waits and readbacks); submits: queue\n"
              "submissions per frame (--json: the host's wall and CPU time per stage). agreement: observed voxels\n"
              "classified alike.\n");
  return 0;
}

CommandRun setupBenchFrames(CLI::App& command) {
  auto args = std::make_shared<BenchFramesArgs>();
  command.add_option("--frames", args->frames, "lidar frames (64 x 1024 scans, 65,536 rays each; held in memory)")
      ->check(integerIn(1, 4096))
      ->capture_default_str();
  command.add_option("--resolution", args->resolutions, "voxel edges in metres (default 0.05 0.1 0.2)")
      ->check(numberIn(kMinResolution, 100.0, "metres"));
  addUpdateOrderOption(command, args->order);
  addResidencyLookupOption(command, args->lookup);
  command.add_option("--model", args->model, "the occupancy model's preset (hit, miss and clamp values)")
      ->check(CLI::IsMember({"ohm", "octomap"}))
      ->capture_default_str();
  command.add_option("--speed", args->speed, "the sensor's speed along the scene's path; 0: a fixed sensor")
      ->check(numberIn(0.0, 100.0, "metres per second"))
      ->capture_default_str();
  return [args](const CommonOptions& options) { return benchFrames(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "bench frames", "occupancy per lidar frame (64 x 1024 rays): ms per frame at 0.05, 0.1 and 0.2 m, GPU beside the CPU",
    &setupBenchFrames, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

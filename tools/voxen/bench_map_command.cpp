// `voxen bench map`: occupancy integration of a synthetic 64 x 1024 lidar run on the GPU
// path and with the CPU reference in the same run, at 0.1 m and 0.25 m (or --resolution).
// The GPU and the CPU reference run in the same update order (--update-order, default
// sequential); the bench reports the class agreement of the two maps and the Jaccard index
// of the GPU map's occupied voxels against the sequential CPU map (each ray's misses then
// its hit, as OHM and OctoMap do): in the two-phase order it also runs that map, to show how
// far batching moves the surfaces from the sequential result.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "bench_stats.hpp"
#include "commands.hpp"
#include "host_stage_report.hpp"
#include "stopwatch.hpp"
#include "json_output.hpp"
#include "option_checks.hpp"
#include "text_format.hpp"
#include "update_order_option.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/map/map_overlap.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

namespace {


struct BenchRun {
  double resolution = 0;
  double gpuSeconds = 0, cpuSeconds = 0, sequentialSeconds = 0;  // medians over the repetitions
  std::vector<double> gpuTimes, cpuTimes, sequentialTimes, ratios;  // every repetition; ratios: GPU over CPU
  double medianRatio = 0;
  double hostPrepSeconds = 0;  // of gpuSeconds: preparing and queueing batches on the host
  // The host thread's own CPU time by stage: every repetition, and the one whose total is
  // the median (reported, so that its stages add up to its total).
  std::vector<HostStageTimes> hostTimesAll;
  HostStageTimes host;
  std::vector<double> workerTimes;  // the preparing worker's CPU seconds, every repetition
  double workerSeconds = 0;         // their median
  Profile passes;  // GPU time per pass, last repetition
  IntegrationStats gpu, cpu, sequential;
  double classAgreement = 0;  // fraction of observed voxels with the same class (GPU and CPU, same order)
  OccupiedOverlap overSequential;  // occupied voxels of the GPU map against the sequential CPU map
  std::string profile;
};

// The repetition whose host CPU total is the median (the lower one of an even count).
HostStageTimes medianByTotal(std::vector<HostStageTimes> times) {
  if (times.empty()) return {};
  std::sort(times.begin(), times.end(),
            [](const HostStageTimes& a, const HostStageTimes& b) { return a.totalSeconds() < b.totalSeconds(); });
  return times[(times.size() - 1) / 2];
}

constexpr uint64_t kBenchCacheBytes = 512ull << 20;  // the GPU path's region cache
constexpr size_t kPrepareChunk = 16384;               // rays per chunk the preparing worker hands over

struct BenchMapArgs {
  uint64_t rayTarget = 1u << 20;
  std::optional<double> resolution;  // unset: 0.1 m and 0.25 m
  uint32_t batch = 1u << 17;
  int repeat = 3;
  UpdateOrder order = UpdateOrder::Sequential;
  std::string model = "ohm";  // the occupancy model's preset
  double speed = LidarConfig().speed;  // m/s along the scene's path; 0: a fixed sensor
  std::vector<std::string> layers;     // optional layers of both maps
  bool forwardWalk = false;            // walk each ray from its origin (the default walks from the sample)
  unsigned prepareThreads = 1;         // workers preparing rays ahead of the integration thread
};

// The optional layers by the names --layer takes (the map's layer names).
const std::vector<std::pair<std::string, uint32_t>>& benchLayers() {
  static const std::vector<std::pair<std::string, uint32_t>> layers = {
      {"voxel_mean", kLayerVoxelMean}, {"traversal", kLayerTraversal}, {"hit_miss", kLayerHitMiss}, {"touch_time", kLayerTouchTime}};
  return layers;
}

uint32_t layerFlags(const std::vector<std::string>& names) {
  uint32_t flags = 0;
  for (const std::string& name : names)
    for (const auto& [known, flag] : benchLayers())
      if (name == known) flags |= flag;
  return flags;
}

int benchMap(const CommonOptions& options, const BenchMapArgs& args) {
  const uint64_t rayTarget = args.rayTarget;
  const std::vector<double> resolutions = args.resolution ? std::vector<double>{*args.resolution} : std::vector<double>{0.1, 0.25};
  const uint32_t batch = args.batch;
  const int repeat = args.repeat;
  const IntegrationOptions integration{.flags = args.forwardWalk ? uint32_t(kRayForwardWalk) : 0u, .order = args.order};
  const bool sequentialOrder = args.order == UpdateOrder::Sequential;
  LidarConfig lidar;  // 64 rings x 1024 columns
  lidar.speed = args.speed;
  const uint32_t layers = layerFlags(args.layers);
  lidar.scans = int((rayTarget + lidar.raysPerScan() - 1) / lidar.raysPerScan());
  // Every ray is held (with its return flag) beside the GPU cache: sized against the budget
  // before generating them.
  try {
    checkMemoryBudget(uint64_t(lidar.rayCount()) * (sizeof(Ray) + sizeof(uint8_t)) + kBenchCacheBytes,
                      options.memoryBudgetBytes(),
                      "--rays " + std::to_string(rayTarget) + " held in memory beside the " +
                          std::to_string(kBenchCacheBytes >> 20) + " MiB GPU cache",
                      options.memoryBudgetHint() + " or lower --rays");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const auto scene = SyntheticScene::generate(1);
  std::vector<uint8_t> noReturn;
  const std::vector<Ray> rays = generateLidarRays(scene, lidar, &noReturn);

  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  {  // Compile the pipelines (lavapipe compiles at the first dispatch) outside the timing.
    OccupancyMap warm;
    GpuIntegrator gpu(scheduler, warm, integration);
    gpu.integrate(std::span<const Ray>(rays).first(256));
    gpu.finish();
  }
  std::vector<BenchRun> runs;
  // Each resolution runs the GPU path and the CPU reference in turn, --repeat times, and
  // reports medians: on a shared or virtual machine single runs vary by 10-20 %, and the
  // per-repetition ratio cancels slow phases that hit both paths.
  for (double resolution : resolutions) {
    BenchRun run;
    run.resolution = resolution;
    OccupancyModel model = args.model == "octomap" ? OccupancyModel::octomap() : OccupancyModel();
    model.resolution = resolution;
    for (int rep = 0; rep < repeat; ++rep) {
      OccupancyMap gpuMap(model, layers), cpuMap(model, layers);
      scheduler.resetProfile();
      auto start = Clock::now();
      const GpuIntegratorOptions gpuOptions{.cacheBytes = kBenchCacheBytes, .maxRaysPerBatch = batch};
      GpuIntegrator gpu(scheduler, gpuMap, integration, gpuOptions);
      {
        // As `voxen map` does: a worker prepares the rays (prepareRays) ahead of the
        // integration thread, which only copies their records into batches.
        size_t at = 0;
        PreparedRayStream stream(
            [&](uint64_t&) {
              const size_t n = std::min<size_t>(kPrepareChunk, rays.size() - at);
              const std::span<const Ray> chunk = std::span<const Ray>(rays).subspan(at, n);
              at += n;
              return chunk;
            },
            model, integration, gpuOptions.maxCrossingsPerSegment, args.prepareThreads);
        PreparedRays prepared;
        uint64_t progress = 0;
        while (stream.next(prepared, progress)) gpu.integrate(prepared);
        run.hostPrepSeconds = secondsSince(start);
        run.workerTimes.push_back(stream.workerCpuSeconds());
      }
      gpu.finish();
      run.gpuTimes.push_back(secondsSince(start));
      run.gpu = gpu.stats();
      run.hostTimesAll.push_back(gpu.hostStageTimes());
      run.passes = scheduler.profile();
      std::ostringstream profile;
      scheduler.profile().print(profile);
      run.profile = profile.str();
      start = Clock::now();
      CpuIntegrator cpu(cpuMap, integration);
      for (size_t i = 0; i < rays.size(); i += batch)
        cpu.integrate(std::span<const Ray>(rays).subspan(i, std::min<size_t>(batch, rays.size() - i)));
      run.cpuTimes.push_back(secondsSince(start));
      run.ratios.push_back(run.gpuTimes.back() / run.cpuTimes.back());
      run.cpu = cpu.stats();
      if (rep + 1 == repeat) run.classAgreement = classAgreement(gpuMap, cpuMap);
      if (sequentialOrder) {  // the CPU reference is the sequential map
        run.sequentialTimes.push_back(run.cpuTimes.back());
        run.sequential = run.cpu;
        if (rep + 1 == repeat) run.overSequential = occupiedJaccard(gpuMap, cpuMap);
        continue;
      }
      cpuMap = OccupancyMap(model);  // free it before the sequential map grows
      // The sequential map does not depend on how the rays are cut into calls; the same
      // batches as above keep its prepared rays as small as the two-phase run's.
      OccupancyMap sequentialMap(model);
      start = Clock::now();
      CpuIntegrator sequential(sequentialMap, {.order = UpdateOrder::Sequential});
      for (size_t i = 0; i < rays.size(); i += batch)
        sequential.integrate(std::span<const Ray>(rays).subspan(i, std::min<size_t>(batch, rays.size() - i)));
      run.sequentialTimes.push_back(secondsSince(start));
      run.sequential = sequential.stats();
      if (rep + 1 == repeat) run.overSequential = occupiedJaccard(gpuMap, sequentialMap);
    }
    run.gpuSeconds = median(run.gpuTimes);
    run.cpuSeconds = median(run.cpuTimes);
    run.sequentialSeconds = median(run.sequentialTimes);
    run.medianRatio = median(run.ratios);
    run.host = medianByTotal(run.hostTimesAll);
    run.workerSeconds = median(run.workerTimes);
    runs.push_back(run);
  }

  auto rate = [](uint64_t n, double s) { return s > 0 ? double(n) / s : 0.0; };
  if (options.json) {
    const BenchRun& first = runs.front();
    Json summary = {{"device", device.info().name},
                    {"driver", device.info().driverName},
                    {"rays", rays.size()},
                    {"resolution", first.resolution},
                    {"gpu_rays_per_s", rounded(rate(first.gpu.rays, first.gpuSeconds), 1)},
                    {"cpu_rays_per_s", rounded(rate(first.cpu.rays, first.cpuSeconds), 1)},
                    {"gpu_voxel_updates_per_s", rounded(rate(first.gpu.voxelUpdates, first.gpuSeconds), 1)},
                    {"cpu_voxel_updates_per_s", rounded(rate(first.cpu.voxelUpdates, first.cpuSeconds), 1)},
                    {"sequential_rays_per_s", rounded(rate(first.sequential.rays, first.sequentialSeconds), 1)},
                    {"batch_size", batch},
                    {"update_order", updateOrderName(args.order)},
                    {"model", args.model},
                    {"speed", args.speed},
                    {"forward_walk", args.forwardWalk},
                    {"prepare_threads", args.prepareThreads},
                    {"layers", args.layers}};
    addHostStageJson(summary, first.host);
  summary["worker_prepare_ns_per_ray"] = rounded(first.host.nsPerRay(first.workerSeconds), 2);
    summary["runs"] = Json::array();
    for (const BenchRun& r : runs) {
      Json run = {{"resolution", r.resolution},
                  {"gpu_s", rounded(r.gpuSeconds, 4)},
                  {"cpu_s", rounded(r.cpuSeconds, 4)},
                  {"gpu_rays_per_s", rounded(rate(r.gpu.rays, r.gpuSeconds), 1)},
                  {"cpu_rays_per_s", rounded(rate(r.cpu.rays, r.cpuSeconds), 1)},
                  {"gpu_voxel_updates_per_s", rounded(rate(r.gpu.voxelUpdates, r.gpuSeconds), 1)},
                  {"cpu_voxel_updates_per_s", rounded(rate(r.cpu.voxelUpdates, r.cpuSeconds), 1)},
                  {"voxel_updates", r.gpu.voxelUpdates},
                  {"dropped_updates", r.gpu.droppedUpdates},
                  {"cas_retries", r.gpu.casRetries},
                  {"cas_retries_per_update", rounded(r.gpu.voxelUpdates ? double(r.gpu.casRetries) / double(r.gpu.voxelUpdates) : 0.0, 6)},
                  {"rewalked_segments", r.gpu.rewalkedSegments},
                  {"class_agreement", rounded(r.classAgreement, 6)},
                  {"sequential_s", rounded(r.sequentialSeconds, 4)},
                  {"sequential_rays_per_s", rounded(rate(r.sequential.rays, r.sequentialSeconds), 1)},
                  {"sequential_voxel_updates_per_s",
                   rounded(rate(r.sequential.voxelUpdates, r.sequentialSeconds), 1)},
                  {"occupied_jaccard_vs_sequential", rounded(r.overSequential.jaccard(), 6)},
                  {"occupied_intersection_vs_sequential", r.overSequential.intersection},
                  {"occupied_union_vs_sequential", r.overSequential.unionCount},
                  {"host_prep_s", rounded(r.hostPrepSeconds, 4)},
                  {"repeat", r.gpuTimes.size()},
                  {"gpu_s_all", secondsList(r.gpuTimes)},
                  {"cpu_s_all", secondsList(r.cpuTimes)},
                  {"sequential_s_all", secondsList(r.sequentialTimes)},
                  {"gpu_over_cpu_median", rounded(r.medianRatio, 4)}};
      addHostStageJson(run, r.host);
      run["worker_prepare_ns_per_ray"] = rounded(r.host.nsPerRay(r.workerSeconds), 2);
      addPassTimesJson(run, r.passes);
      summary["runs"].push_back(run);
    }
    printJson(summary);
    return 0;
  }
  std::string layerText;
  for (const std::string& name : args.layers) layerText += (layerText.empty() ? "" : ", ") + name;
  std::printf("voxen bench map on %s (%s): synthetic lidar %d x %d, %d scans at %.3g m/s%s, %s rays, batches of %s, %s "
              "order, %s model, layers: %s; medians of %d repetitions\n\n",
              device.info().name.c_str(), device.info().driverName.c_str(), lidar.rings, lidar.columns, lidar.scans,
              args.speed, args.speed == 0.0 ? " (a fixed sensor)" : "", withCommas(rays.size()).c_str(),
              withCommas(batch).c_str(), updateOrderName(args.order), args.model.c_str(),
              layerText.empty() ? "occupancy only" : layerText.c_str(), repeat);
  std::printf("%-10s %-15s %10s %14s %18s %12s %10s %10s %10s\n", "resolution", "path", "seconds", "rays/s",
              "voxel updates/s", "host ns/ray", "dropped", "agreement", "jaccard");
  for (const BenchRun& r : runs) {
    std::printf("%-10.3g %-15s %10.3f %14.4g %18.4g %12.1f %10llu %9.4f%% %10.6f\n", r.resolution, "GPU (Voxen)",
                r.gpuSeconds, rate(r.gpu.rays, r.gpuSeconds), rate(r.gpu.voxelUpdates, r.gpuSeconds),
                r.host.nsPerRay(r.host.totalSeconds()), (unsigned long long)r.gpu.droppedUpdates, r.classAgreement * 100.0,
                r.overSequential.jaccard());
    std::printf("%-10.3g %-15s %10.3f %14.4g %18.4g %12s %10s %10s %10s\n", r.resolution, "CPU reference", r.cpuSeconds,
                rate(r.cpu.rays, r.cpuSeconds), rate(r.cpu.voxelUpdates, r.cpuSeconds), "-", "-", "-", "-");
    if (!sequentialOrder)
      std::printf("%-10.3g %-15s %10.3f %14.4g %18.4g %12s %10s %10s %10s\n", r.resolution, "CPU sequential",
                  r.sequentialSeconds, rate(r.sequential.rays, r.sequentialSeconds),
                  rate(r.sequential.voxelUpdates, r.sequentialSeconds), "-", "-", "-", "-");
  }
  std::printf("\nagreement: observed voxels of the same class in the GPU map and the CPU reference (same order).\n"
              "jaccard: occupied voxels of the GPU map against the CPU sequential map (each ray's misses, then its\n"
              "hit, in input order, as OHM and OctoMap do), intersection over union:");
  for (size_t i = 0; i < runs.size(); ++i)
    std::printf("%s %.3g m: %s of %s", i ? ";" : "", runs[i].resolution, withCommas(runs[i].overSequential.intersection).c_str(),
                withCommas(runs[i].overSequential.unionCount).c_str());
  std::printf("\n");
  std::printf("\ncompare-and-swap retries (updates that lost a race and tried again) per voxel update:");
  for (size_t i = 0; i < runs.size(); ++i)
    std::printf("%s %.3g m: %.2e (%s retries)", i ? ";" : "", runs[i].resolution,
                runs[i].gpu.voxelUpdates ? double(runs[i].gpu.casRetries) / double(runs[i].gpu.voxelUpdates) : 0.0,
                withCommas(runs[i].gpu.casRetries).c_str());
  std::printf("\n");
  for (const BenchRun& r : runs) {
    std::printf("\nGPU time over CPU time at %.3g m: median %.3f, per repetition", r.resolution, r.medianRatio);
    for (double ratio : r.ratios) std::printf(" %.3f", ratio);
    std::printf("\n");
  }
  std::printf("\nhost ns/ray: the GPU path's integration thread CPU time per ray (thread CPU clock: waits for the GPU\n"
              "do not count), the repetition with the median total, by stage; the rays are prepared by worker threads\n"
              "ahead of it (--prepare-threads; their CPU time per ray, median):\n");
  for (const BenchRun& r : runs)
    std::printf("  %.3g m: %s; preparing workers %.1f ns per ray (CPU, summed)\n", r.resolution, hostStageLine(r.host).c_str(),
                r.host.nsPerRay(r.workerSeconds));
  for (const BenchRun& r : runs) {
    double passMs = 0.0;
    for (const auto& [name, timing] : r.passes.passes()) passMs += timing.totalMs;
    std::printf("\nGPU path at %.3g m (last repetition): %.3f s of host preparation (overlaps the GPU), passes (%.1f ms "
                "in all):\n%s",
                r.resolution, r.hostPrepSeconds, passMs, r.profile.c_str());
  }
  return 0;
}

CommandRun setupBenchMap(CLI::App& command) {
  auto args = std::make_shared<BenchMapArgs>();
  // The rays are generated in host memory first (56 bytes each): 2^28 of them take 15 GB,
  // more than that fails with an allocation error rather than a benchmark.
  command.add_option("--rays", args->rayTarget, "rays to map (rounded up to whole scans; held in memory, 56 bytes each)")
      ->check(integerIn(65536, int64_t(1) << 28))
      ->capture_default_str();
  command.add_option("--resolution", args->resolution, "voxel edge in metres (default: 0.1 and 0.25)")
      ->check(numberIn(kMinResolution, 100.0, "metres"));
  command.add_option("--batch-size", args->batch, "rays per GPU batch (and per CPU reference batch)")
      ->check(integerIn(1, 1 << 22))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "repetitions per resolution (medians are reported)")
      ->check(integerIn(1, 100))
      ->capture_default_str();
  addUpdateOrderOption(command, args->order);
  command.add_option("--model", args->model, "the occupancy model's preset (hit, miss and clamp values)")
      ->check(CLI::IsMember({"ohm", "octomap"}))
      ->capture_default_str();
  command.add_option("--speed", args->speed, "the sensor's speed along the scene's path; 0: a fixed sensor (every ray from one origin)")
      ->check(numberIn(0.0, 100.0, "metres per second"))
      ->capture_default_str();
  std::vector<std::string> names;
  for (const auto& [name, flag] : benchLayers()) names.push_back(name);
  command.add_option("--prepare-threads", args->prepareThreads,
                     "worker threads preparing the rays ahead of the integration thread (as voxen map --threads does)")
      ->check(integerIn(1, 256))
      ->capture_default_str();
  command.add_flag("--forward-walk", args->forwardWalk,
                   "walk rays from the sensor outwards (the default walks from the sample back, which spreads the "
                   "updates near a fixed sensor over time)");
  command.add_option("--layer", args->layers, "an optional layer of both maps (repeat for several): what it costs")
      ->check(CLI::IsMember(names));
  return [args](const CommonOptions& options) { return benchMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench map", "occupancy mapping, GPU beside the CPU reference in the same order, and its Jaccard against the sequential map", &setupBenchMap,
                                        Uses::Gpu | Uses::ProfileAlways | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

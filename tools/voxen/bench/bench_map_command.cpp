// `voxen bench map`: occupancy integration of a synthetic 64 x 1024 lidar run on the GPU
// path and with the CPU reference in the same run, at 0.1 m and 0.25 m (or --resolution).
// The GPU and the CPU reference run in the same update order (--update-order, default
// sequential); the bench reports the class agreement of the two maps and the Jaccard index
// of the GPU map's occupied voxels against the sequential CPU map (each ray's misses then
// its hit, as OHM and OctoMap do): in the two-phase order it also runs that map, to show how
// far batching moves the surfaces from the sequential result. --rays-file maps the rays of a
// ray cloud instead, so that another client of the engine (the Python package's benchmark)
// can be timed against this path on the same rays.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <span>

#include "bench/bench_plan.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/host_stage_report.hpp"
#include "stopwatch.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "report/progress.hpp"
#include "report/text_format.hpp"
#include "residency_lookup_option.hpp"
#include "update_order_option.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/input/ray_source.hpp"
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
  bool raysGiven = false;            // --rays was given: never reduced to fit the memory budget
  std::optional<double> resolution;  // unset: 0.1 m and 0.25 m
  uint32_t batch = 1u << 17;
  int repeat = 3;
  UpdateOrder order = UpdateOrder::Sequential;
  std::string model = "ohm";  // the occupancy model's preset
  double speed = LidarConfig().speed;  // m/s along the scene's path; 0: a fixed sensor
  std::vector<std::string> layers;     // optional layers of both maps
  bool forwardWalk = false;            // walk each ray from its origin (the default walks from the sample)
  unsigned prepareThreads = 1;         // workers preparing rays ahead of the integration thread
  std::string raysFile;                // a ray cloud to map instead of the synthetic run
  ResidencyLookup lookup = ResidencyLookup::Adaptive;
};

// Every ray of a ray cloud (vertices with their origin), in order, with the longest ray's
// length (it sizes the smallest GPU cache as the lidar's range does).
struct FileRays {
  std::vector<Ray> rays;
  double maxLength = 0;
};

FileRays readRaysFile(const std::string& path) {
  RayReader reader(path);
  if (reader.usesTrajectory()) throw Error(path + ": --rays-file needs a ray cloud (vertices with their origin)");
  FileRays out;
  while (reader.read(out.rays, size_t(1) << 20) > 0) {
  }
  if (out.rays.empty()) throw Error(path + ": --rays-file holds no rays");
  for (const Ray& ray : out.rays) out.maxLength = std::max(out.maxLength, glm::length(ray.sample - ray.origin));
  return out;
}

// The optional layers by the names --layer takes (the map's layer names).
const std::vector<std::pair<std::string, LayerId>>& benchLayers() {
  static const std::vector<std::pair<std::string, LayerId>> layers = {
      {"voxel_mean", kVoxelMeanLayer}, {"traversal", kTraversalLayer}, {"hit_miss", kHitMissLayer}, {"touch_time", kTouchTimeLayer}};
  return layers;
}

LayerSet layerSet(const std::vector<std::string>& names) {
  LayerSet set;
  for (const std::string& name : names)
    for (const auto& [known, layer] : benchLayers())
      if (name == known) set.add(layer);
  return set;
}

// One run of the GPU path (as `voxen map` does it: workers prepare the rays ahead of the
// integration thread, into the integrator's record pool) or of a CPU integrator.
struct PathRun {
  double seconds = 0;       // wall, construction to finish
  double loopSeconds = 0;   // of which the rays' integration (the rest is fixed: the cache, the copy back)
  double prepSeconds = 0;   // GPU: until the last batch was queued
  double workerSeconds = 0; // GPU: the preparing workers' CPU time
  IntegrationStats stats;
  HostStageTimes host;
};

using Advance = std::function<void(uint64_t)>;

// What a run maps, decided before the device is opened: the resolutions, the rays (generated
// or read from --rays-file) and how the memory budget is split between them, the GPU cache
// and the host maps.
struct MapBenchPlan {
  std::vector<double> resolutions;
  IntegrationOptions integration;
  LidarConfig lidar;  // 64 rings x 1024 columns
  LayerSet layers;
  OccupancyModel baseModel;
  BenchMemoryPlan memory;
  std::vector<Ray> rays;
  bool sequentialOrder() const { return integration.order == UpdateOrder::Sequential; }
  OccupancyModel modelAt(double resolution) const {
    OccupancyModel model = baseModel;
    model.resolution = resolution;
    return model;
  }
};

// The rays (held with their return flags), the GPU cache and the two host maps share the
// memory budget; a default run shrinks to fit it rather than being refused. The finest
// resolution crosses the most regions per ray, which sets the smallest cache.
MapBenchPlan planMapBench(const CommonOptions& options, const BenchMapArgs& args) {
  MapBenchPlan plan;
  plan.resolutions = args.resolution ? std::vector<double>{*args.resolution} : std::vector<double>{0.1, 0.25};
  plan.integration = {.flags = args.forwardWalk ? RayFlags(RayFlag::ForwardWalk) : RayFlags(), .order = args.order};
  plan.lidar.speed = args.speed;
  plan.layers = layerSet(args.layers);
  plan.baseModel = args.model == "octomap" ? OccupancyModel::octomap() : OccupancyModel();
  const OccupancyModel finest = plan.modelAt(*std::min_element(plan.resolutions.begin(), plan.resolutions.end()));
  std::optional<FileRays> fileRays;
  if (!args.raysFile.empty()) fileRays = readRaysFile(args.raysFile);
  const uint64_t raysPerScan = fileRays ? 1 : plan.lidar.raysPerScan();
  const uint64_t rayCount = fileRays ? fileRays->rays.size() : args.rayTarget;
  plan.memory = planBenchMemory(
      {.budgetBytes = options.memoryBudgetBytes(),
       .budgetHint = options.memoryBudgetHint(),
       .rays = (rayCount + raysPerScan - 1) / raysPerScan * raysPerScan,
       .raysGiven = args.raysGiven || fileRays.has_value(),
       .raysPerScan = raysPerScan,
       .bytesPerRay = sizeof(Ray) + sizeof(uint8_t),
       .cacheBytes = kBenchCacheBytes,
       .minCacheBytes = minimumBenchCache(fileRays ? fileRays->maxLength : plan.lidar.maxRange, finest.resolution,
                                          finest.regionSize, OccupancyMap(finest, plan.layers).bytesPerRegion()),
       .maps = 2});
  if (!plan.memory.reduced.empty()) std::fprintf(stderr, "voxen bench map: %s\n", plan.memory.reduced.c_str());
  if (fileRays) {
    plan.rays = std::move(fileRays->rays);
  } else {
    plan.lidar.scans = int(plan.memory.rays / raysPerScan);
    std::vector<uint8_t> noReturn;
    plan.rays = generateLidarRays(SyntheticScene::generate(1), plan.lidar, &noReturn);
  }
  return plan;
}

// The timed run: the device, the GPU path and the CPU reference, each resolution in turn.
class MapBench {
 public:
  MapBench(const CommonOptions& options, const BenchMapArgs& args, MapBenchPlan plan)
      : options_(options),
        args_(args),
        plan_(std::move(plan)),
        gpuOptions_{.cacheBytes = plan_.memory.cacheBytes, .maxRaysPerBatch = args.batch, .residencyLookup = args.lookup},
        // Chunks of at most a batch (and of at least 256 rays): the batches do not depend on
        // them (the integrator fills its batches across chunks), but a tiny --batch-size still
        // reports progress every few hundred batches.
        chunkRays_(std::clamp<size_t>(args.batch, 256, kPrepareChunk)),
        device_(options.device),
        library_(device_, options.libraryOptions()),
        scheduler_(device_, library_) {}

  const MapBenchPlan& plan() const { return plan_; }
  const DeviceInfo& deviceInfo() const { return device_.info(); }
  const Device& device() const { return device_; }

  // Every configuration that is timed runs once untimed first, on a prefix of the rays with
  // the same model, layers, batches and path: lavapipe compiles each pipeline at its first
  // dispatch, and the layers are pipeline variants. A second run of the prefix is the trial
  // that the run's length is estimated from, said up front when it is long (a tiny
  // --batch-size makes every batch's fixed work count).
  void warmUpAndAnnounce() {
    const std::vector<Ray>& rays = plan_.rays;
    const uint32_t batch = args_.batch;
    const int repeat = args_.repeat;
    const size_t trialRays = std::min<size_t>({rays.size(), 16384, 64 * size_t(batch)});
    const std::span<const Ray> trial = std::span<const Ray>(rays).first(trialRays);
    const double scale = double(rays.size()) / double(trialRays);
    double estimate = 0, gpuEstimate = 0;
    for (double resolution : plan_.resolutions) {
      const OccupancyModel model = plan_.modelAt(resolution);
      {
        OccupancyMap warm(model, plan_.layers);
        gpuPath(model, trial, warm, nullptr);
      }
      OccupancyMap gpuMap(model, plan_.layers), cpuMap(model, plan_.layers);
      const PathRun gpu = gpuPath(model, trial, gpuMap, nullptr);
      const PathRun cpu = cpuPath(plan_.integration, trial, cpuMap, nullptr);
      const double gpuSeconds = (gpu.seconds - gpu.loopSeconds) + gpu.loopSeconds * scale;
      gpuEstimate += repeat * gpuSeconds;
      estimate += repeat * (gpuSeconds + cpu.seconds * scale * (plan_.sequentialOrder() ? 1 : 2));
    }
    const uint64_t batches = (rays.size() + batch - 1) / batch;
    announceLongRun("bench map", estimate,
                    "from a trial of " + withCommas(trialRays) + " rays, " + std::to_string(repeat) + " repetition(s) of " +
                        withCommas(rays.size()) + " rays at " + std::to_string(plan_.resolutions.size()) +
                        " resolution(s), the GPU path about " + durationText(gpuEstimate) + " of it" +
                        (batches > 1000 ? " in " + withCommas(batches) + " batches of --batch-size " +
                                              withCommas(batch) + " per repetition (each batch has fixed work: a " +
                                              "larger --batch-size is faster)"
                                        : std::string()) +
                        "; lower --rays or --repeat for a shorter run");
  }

  // Each resolution runs the GPU path and the CPU reference in turn, --repeat times, and
  // reports medians: on a shared or virtual machine single runs vary by 10-20 %, and the
  // per-repetition ratio cancels slow phases that hit both paths. Progress goes over every
  // ray each timed path integrates, with a rate and an ETA. `coldPipelines`: pipelines first
  // dispatched while timing.
  std::vector<BenchRun> run(uint64_t& coldPipelines) {
    const uint64_t total =
        uint64_t(plan_.rays.size()) * plan_.resolutions.size() * args_.repeat * (plan_.sequentialOrder() ? 2 : 3);
    Progress progress("bench map", total);
    uint64_t done = 0;
    const Advance advance = [&](uint64_t n) { progress.update(done += n); };
    std::vector<BenchRun> runs;
    const uint64_t firstDispatchesBefore = scheduler_.stats().firstDispatches;
    for (double resolution : plan_.resolutions) runs.push_back(runResolution(resolution, advance));
    progress.finish(done);
    coldPipelines = scheduler_.stats().firstDispatches - firstDispatchesBefore;
    warnColdPipelines("bench map", coldPipelines);
    return runs;
  }

 private:
  // One run of the GPU path (as `voxen map` does it: workers prepare the rays ahead of the
  // integration thread, straight into the integrator's record pool, so that thread does no
  // work per ray).
  PathRun gpuPath(const OccupancyModel& model, std::span<const Ray> input, OccupancyMap& map, const Advance& progress) {
    PathRun run;
    const auto start = Clock::now();
    GpuIntegrator gpu(scheduler_, map, plan_.integration, gpuOptions_);
    const auto loopStart = Clock::now();
    {
      size_t at = 0;
      PreparedRayStream stream(
          [&](uint64_t&) {
            const size_t n = std::min<size_t>(chunkRays_, input.size() - at);
            const std::span<const Ray> chunk = input.subspan(at, n);
            at += n;
            return chunk;
          },
          model, plan_.integration, gpuOptions_.maxCrossingsPerSegment, args_.prepareThreads, 0, &gpu.recordPool());
      PreparedRays prepared;
      uint64_t ignored = 0;
      while (stream.next(prepared, ignored)) {
        gpu.integrate(prepared);
        if (progress) progress(prepared.inputRays);
      }
      run.prepSeconds = secondsSince(start);
      run.workerSeconds = stream.workerCpuSeconds();
    }
    run.loopSeconds = secondsSince(loopStart);
    gpu.finish();
    run.seconds = secondsSince(start);
    run.stats = gpu.stats();
    run.host = gpu.hostStageTimes();
    return run;
  }

  // One run of a CPU integrator, in batches of --batch-size.
  PathRun cpuPath(const IntegrationOptions& cpuOptions, std::span<const Ray> input, OccupancyMap& map,
                  const Advance& progress) const {
    PathRun run;
    const auto start = Clock::now();
    CpuIntegrator cpu(map, cpuOptions);
    for (size_t i = 0; i < input.size(); i += args_.batch) {
      const std::span<const Ray> part = input.subspan(i, std::min<size_t>(args_.batch, input.size() - i));
      cpu.integrate(part);
      if (progress) progress(part.size());
    }
    run.seconds = run.loopSeconds = secondsSince(start);
    run.stats = cpu.stats();
    return run;
  }

  // A host map held to its share of the memory budget.
  OccupancyMap budgetedMap(const OccupancyModel& model, LayerSet mapLayers) const {
    OccupancyMap map(model, mapLayers);
    map.setRegionLimit(plan_.memory.mapBytes / map.bytesPerRegion(), options_.memoryBudgetHint());
    return map;
  }

  BenchRun runResolution(double resolution, const Advance& advance) {
    BenchRun run;
    run.resolution = resolution;
    const OccupancyModel model = plan_.modelAt(resolution);
    for (int rep = 0; rep < args_.repeat; ++rep) runRepetition(run, model, rep + 1 == args_.repeat, advance);
    run.gpuSeconds = median(run.gpuTimes);
    run.cpuSeconds = median(run.cpuTimes);
    run.sequentialSeconds = median(run.sequentialTimes);
    run.medianRatio = median(run.ratios);
    run.host = medianByTotal(run.hostTimesAll);
    run.workerSeconds = median(run.workerTimes);
    return run;
  }

  // The GPU path, the CPU reference in the same order and, in the two-phase order, the
  // sequential CPU map; the maps are compared after the last repetition.
  void runRepetition(BenchRun& run, const OccupancyModel& model, bool last, const Advance& advance) {
    const std::vector<Ray>& rays = plan_.rays;
    OccupancyMap gpuMap = budgetedMap(model, plan_.layers), cpuMap = budgetedMap(model, plan_.layers);
    scheduler_.resetProfile();
    const PathRun gpu = gpuPath(model, rays, gpuMap, advance);
    run.hostPrepSeconds = gpu.prepSeconds;
    run.workerTimes.push_back(gpu.workerSeconds);
    run.gpuTimes.push_back(gpu.seconds);
    run.gpu = gpu.stats;
    run.hostTimesAll.push_back(gpu.host);
    run.passes = scheduler_.profile();
    run.profile = profileText(scheduler_.profile());
    const PathRun cpu = cpuPath(plan_.integration, rays, cpuMap, advance);
    run.cpuTimes.push_back(cpu.seconds);
    run.ratios.push_back(run.gpuTimes.back() / run.cpuTimes.back());
    run.cpu = cpu.stats;
    if (last) run.classAgreement = classAgreement(gpuMap, cpuMap);
    if (plan_.sequentialOrder()) {  // the CPU reference is the sequential map
      run.sequentialTimes.push_back(run.cpuTimes.back());
      run.sequential = run.cpu;
      if (last) run.overSequential = occupiedJaccard(gpuMap, cpuMap);
      return;
    }
    cpuMap = OccupancyMap(model);  // free it before the sequential map grows
    // The sequential map does not depend on how the rays are cut into calls; the same
    // batches as above keep its prepared rays as small as the two-phase run's.
    OccupancyMap sequentialMap = budgetedMap(model, LayerSet{});
    const PathRun sequential = cpuPath({.order = UpdateOrder::Sequential}, rays, sequentialMap, advance);
    run.sequentialTimes.push_back(sequential.seconds);
    run.sequential = sequential.stats;
    if (last) run.overSequential = occupiedJaccard(gpuMap, sequentialMap);
  }

  const CommonOptions& options_;
  const BenchMapArgs& args_;
  const MapBenchPlan plan_;
  const GpuIntegratorOptions gpuOptions_;
  const size_t chunkRays_;
  Device device_;
  ShaderLibrary library_;
  Scheduler scheduler_;
};

double rate(uint64_t n, double seconds) { return seconds > 0 ? double(n) / seconds : 0.0; }

double casRetriesPerUpdate(const IntegrationStats& stats) {
  return stats.voxelUpdates ? double(stats.casRetries) / double(stats.voxelUpdates) : 0.0;
}

Json runJson(const BenchRun& r) {
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
              {"cas_retries_per_update", rounded(casRetriesPerUpdate(r.gpu), 6)},
              {"rewalked_segments", r.gpu.rewalkedSegments},
              {"class_agreement", rounded(r.classAgreement, 6)},
              {"sequential_s", rounded(r.sequentialSeconds, 4)},
              {"sequential_rays_per_s", rounded(rate(r.sequential.rays, r.sequentialSeconds), 1)},
              {"sequential_voxel_updates_per_s", rounded(rate(r.sequential.voxelUpdates, r.sequentialSeconds), 1)},
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
  return run;
}

void printMapJson(const MapBench& bench, const BenchMapArgs& args, const CommonOptions& options,
                  const std::vector<BenchRun>& runs, uint64_t coldPipelines) {
  const BenchRun& first = runs.front();
  Json summary = benchSummary(
      bench.device(),
      {{"rays", bench.plan().rays.size()},
       {"rays_file", args.raysFile},
       {"resolution", first.resolution},
       {"gpu_rays_per_s", rounded(rate(first.gpu.rays, first.gpuSeconds), 1)},
       {"cpu_rays_per_s", rounded(rate(first.cpu.rays, first.cpuSeconds), 1)},
       {"gpu_voxel_updates_per_s", rounded(rate(first.gpu.voxelUpdates, first.gpuSeconds), 1)},
       {"cpu_voxel_updates_per_s", rounded(rate(first.cpu.voxelUpdates, first.cpuSeconds), 1)},
       {"sequential_rays_per_s", rounded(rate(first.sequential.rays, first.sequentialSeconds), 1)},
       {"batch_size", args.batch},
       {"update_order", updateOrderName(args.order)},
       {"residency_lookup", residencyLookupName(args.lookup)},
       {"model", args.model},
       {"speed", args.speed},
       {"forward_walk", args.forwardWalk},
       {"prepare_threads", args.prepareThreads},
       {"layers", args.layers},
       {"gpu_cache_mb", rounded(double(bench.plan().memory.cacheBytes) / double(1 << 20), 1)},
       {"memory_budget_mb", options.memoryBudgetBytes() >> 20},
       {"pipelines_first_used_while_timing", coldPipelines}});
  addHostStageJson(summary, first.host);
  summary["worker_prepare_ns_per_ray"] = rounded(first.host.nsPerRay(first.workerSeconds), 2);
  summary["runs"] = jsonArray(runs, runJson);
  printJson(summary);
}

void printMapHeading(const MapBench& bench, const BenchMapArgs& args) {
  const LidarConfig& lidar = bench.plan().lidar;
  std::string layerText;
  for (const std::string& name : args.layers) layerText += (layerText.empty() ? "" : ", ") + name;
  char source[256];
  if (args.raysFile.empty())
    std::snprintf(source, sizeof source, "synthetic lidar %d x %d, %d scans at %.3g m/s%s", lidar.rings, lidar.columns,
                  lidar.scans, args.speed, args.speed == 0.0 ? " (a fixed sensor)" : "");
  else
    std::snprintf(source, sizeof source, "the ray cloud %s", args.raysFile.c_str());
  std::printf("voxen bench map on %s (%s): %s, %s rays, batches of %s, %s "
              "order, %s model, layers: %s; a GPU cache of %s; medians of %d repetitions\n\n",
              bench.deviceInfo().name.c_str(), bench.deviceInfo().driverName.c_str(), source,
              withCommas(bench.plan().rays.size()).c_str(), withCommas(args.batch).c_str(), updateOrderName(args.order),
              args.model.c_str(), layerText.empty() ? "occupancy only" : layerText.c_str(),
              mebibytes(bench.plan().memory.cacheBytes).c_str(), args.repeat);
}

void printMapTable(const std::vector<BenchRun>& runs, bool sequentialOrder) {
  const TextTable table({{"resolution", 10, Align::Left},
                         {"path", 15, Align::Left},
                         {"seconds", 10},
                         {"rays/s", 14},
                         {"voxel updates/s", 18},
                         {"host ns/ray", 12},
                         {"dropped", 10},
                         {"agreement", 10},
                         {"jaccard", 10}});
  table.printHead();
  auto cpuRow = [&](double resolution, const char* path, double seconds, const IntegrationStats& stats) {
    table.printRow({general(resolution, 3), path, fixed(seconds, 3), general(rate(stats.rays, seconds), 4),
                    general(rate(stats.voxelUpdates, seconds), 4), "-", "-", "-", "-"});
  };
  for (const BenchRun& r : runs) {
    table.printRow({general(r.resolution, 3), "GPU (Voxen)", fixed(r.gpuSeconds, 3), general(rate(r.gpu.rays, r.gpuSeconds), 4),
                    general(rate(r.gpu.voxelUpdates, r.gpuSeconds), 4), fixed(r.host.nsPerRay(r.host.totalSeconds()), 1),
                    count(r.gpu.droppedUpdates), percent(r.classAgreement, 4), fixed(r.overSequential.jaccard(), 6)});
    cpuRow(r.resolution, "CPU reference", r.cpuSeconds, r.cpu);
    if (!sequentialOrder) cpuRow(r.resolution, "CPU sequential", r.sequentialSeconds, r.sequential);
  }
}

// What the table's agreement and jaccard columns mean, the compare-and-swap retries and the
// GPU over CPU time of every repetition.
void printMapComparisons(const std::vector<BenchRun>& runs) {
  std::printf("\nagreement: observed voxels of the same class in the GPU map and the CPU reference (same order).\n"
              "jaccard: occupied voxels of the GPU map against the CPU sequential map (each ray's misses, then its\n"
              "hit, in input order, as OHM and OctoMap do), intersection over union:");
  for (size_t i = 0; i < runs.size(); ++i)
    std::printf("%s %.3g m: %s of %s", i ? ";" : "", runs[i].resolution, withCommas(runs[i].overSequential.intersection).c_str(),
                withCommas(runs[i].overSequential.unionCount).c_str());
  std::printf("\n");
  std::printf("\ncompare-and-swap retries (updates that lost a race and tried again) per voxel update:");
  for (size_t i = 0; i < runs.size(); ++i)
    std::printf("%s %.3g m: %.2e (%s retries)", i ? ";" : "", runs[i].resolution, casRetriesPerUpdate(runs[i].gpu),
                withCommas(runs[i].gpu.casRetries).c_str());
  std::printf("\n");
  for (const BenchRun& r : runs) {
    std::printf("\nGPU time over CPU time at %.3g m: median %.3f, per repetition", r.resolution, r.medianRatio);
    for (double ratio : r.ratios) std::printf(" %.3f", ratio);
    std::printf("\n");
  }
}

// The GPU path's host CPU time per ray by stage, and its passes.
void printMapHostAndPasses(const std::vector<BenchRun>& runs) {
  std::printf("\nhost ns/ray: the GPU path's integration thread CPU time per ray (thread CPU clock: waits for the GPU\n"
              "do not count), the repetition with the median total, by stage; the rays are prepared by worker threads\n"
              "ahead of it (--prepare-threads; their CPU time per ray, median):\n");
  for (const BenchRun& r : runs)
    std::printf("  %.3g m: %s; preparing workers %.1f ns per ray (CPU, summed)\n", r.resolution, hostStageLine(r.host).c_str(),
                r.host.nsPerRay(r.workerSeconds));
  for (const BenchRun& r : runs)
    std::printf("\nGPU path at %.3g m (last repetition): %.3f s of host preparation (overlaps the GPU), passes (%.1f ms "
                "in all):\n%s",
                r.resolution, r.hostPrepSeconds, totalPassMs(r.passes), r.profile.c_str());
}

int benchMap(const CommonOptions& options, const BenchMapArgs& args) {
  MapBench bench(options, args, planMapBench(options, args));
  bench.warmUpAndAnnounce();
  uint64_t coldPipelines = 0;
  const std::vector<BenchRun> runs = bench.run(coldPipelines);
  if (options.json) {
    printMapJson(bench, args, options, runs, coldPipelines);
    return 0;
  }
  printMapHeading(bench, args);
  printMapTable(runs, bench.plan().sequentialOrder());
  printMapComparisons(runs);
  printMapHostAndPasses(runs);
  return 0;
}

CommandRun setupBenchMap(CLI::App& command) {
  auto args = std::make_shared<BenchMapArgs>();
  // The rays are generated in host memory first (56 bytes each): 2^28 of them take 15 GB,
  // more than that fails with an allocation error rather than a benchmark.
  command.add_option("--rays", args->rayTarget, "rays to map (rounded up to whole scans; held in memory, 56 bytes each)")
      ->check(integerIn(65536, int64_t(1) << 28))
      ->capture_default_str();
  CLI::Option* raysOption = command.get_option("--rays");
  CLI::Option* raysFileOption = command.add_option("--rays-file", args->raysFile,
                     "map the rays of this ray cloud (PLY vertices x y z with their origin ox oy oz), in order, "
                     "instead of the synthetic lidar run")
      ->type_name("RAYS.ply")
      ->excludes(raysOption);
  command.add_option("--resolution", args->resolution, "voxel edge in metres (default: 0.1 and 0.25)")
      ->check(numberIn(kMinResolution, 100.0, "metres"));
  command.add_option("--batch-size", args->batch, "rays per GPU batch (and per CPU reference batch)")
      ->check(integerIn(1, 1 << 22))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "repetitions per resolution (medians are reported)")
      ->check(integerIn(1, 100))
      ->capture_default_str();
  addUpdateOrderOption(command, args->order);
  addResidencyLookupOption(command, args->lookup);
  command.add_option("--model", args->model, "the occupancy model's preset (hit, miss and clamp values)")
      ->check(CLI::IsMember({"ohm", "octomap"}))
      ->capture_default_str();
  command.add_option("--speed", args->speed, "the sensor's speed along the scene's path; 0: a fixed sensor (every ray from one origin)")
      ->excludes(raysFileOption)
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
  // The command outlives the run (the app owns it): whether --rays was given is read then.
  return [args, &command](const CommonOptions& options) {
    args->raysGiven = command.count("--rays") > 0;
    return benchMap(options, *args);
  };
}

}  // namespace

static CommandRegistration registration{"bench map", "occupancy mapping, GPU beside the CPU reference in the same order, and its Jaccard against the sequential map", &setupBenchMap,
                                        Uses::Gpu | Uses::ProfileAlways | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

// `voxen bench ndt`: NDT-OM and NDT-TM on the GPU beside plain occupancy (both orders) and
// the CPU NDT reference, in one run on the same synthetic lidar rays; the hit fold's
// invocations per distinct sample voxel and its GPU time against the plain hit pass; and
// the grazing wall (generated) that NDT exists for: the fraction of its voxels each
// integrator leaves occupied.
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <span>

#include "bench/bench_plan.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "report/progress.hpp"
#include "stopwatch.hpp"
#include "report/text_format.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/testdata/grazing_wall.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

constexpr uint64_t kCacheBytes = 512ull << 20;

struct BenchNdtArgs {
  uint64_t rayTarget = 1u << 20;
  bool raysGiven = false;  // --rays was given: never reduced to fit the memory budget
  double resolution = 0.1;
  uint32_t batch = 1u << 17;
  int repeat = 3;
  std::string model = "ohm";
};

// One way of integrating the rays, timed over the repetitions.
struct Variant {
  std::string name;
  bool gpu = true;
  IntegrationOptions options;
  std::vector<double> seconds;
  IntegrationStats stats;
  Profile profile;  // GPU, last repetition
  double medianSeconds() const { return median(seconds); }
  double raysPerSecond() const { return stats.rays / std::max(medianSeconds(), 1e-9); }
};

IntegrationOptions ndtOptions(NdtMode mode, UpdateOrder order) {
  IntegrationOptions o;
  o.order = order;
  o.ndt.mode = mode;
  return o;
}

MapLayout layoutOf(const IntegrationOptions& o) { return ndtLayout(o.ndt.mode); }

// GPU milliseconds of the passes whose names start with one of `prefixes`.
double passMs(const Profile& profile, std::initializer_list<const char*> prefixes) {
  double ms = 0;
  for (const auto& [name, timing] : profile.passes())
    for (const char* prefix : prefixes)
      if (name.rfind(prefix, 0) == 0) ms += timing.totalMs;
  return ms;
}

// How a run is sized: the GPU cache, and the host bytes each map may take (0: no limit).
struct NdtSizes {
  uint32_t batch = 0;
  uint64_t cacheBytes = kCacheBytes;
  uint64_t mapBytes = 0;
  std::string mapHint;
};

// Integrates `rays` into a new map, reporting the rays done to `progress` as it goes; GPU runs
// leave their profile in the scheduler.
OccupancyMap integrateOnce(Scheduler& scheduler, const OccupancyModel& model, Variant& v, std::span<const Ray> rays,
                           const NdtSizes& sizes, const std::function<void(uint64_t)>& progress = {}) {
  OccupancyMap map(model, layoutOf(v.options));
  if (sizes.mapBytes > 0) map.setRegionLimit(sizes.mapBytes / map.bytesPerRegion(), sizes.mapHint);
  const uint32_t batch = sizes.batch;
  const auto start = Clock::now();
  if (v.gpu) {
    scheduler.resetProfile();
    GpuIntegrator gpu(scheduler, map, v.options, {.cacheBytes = sizes.cacheBytes, .maxRaysPerBatch = batch});
    // In parts, for the progress: the batches are filled across calls, so they do not change.
    constexpr size_t kPart = 65536;
    for (size_t i = 0; i < rays.size(); i += kPart) {
      const std::span<const Ray> part = rays.subspan(i, std::min(kPart, rays.size() - i));
      gpu.integrate(part);
      if (progress) progress(part.size());
    }
    gpu.finish();
    v.stats = gpu.stats();
    v.profile = scheduler.profile();
  } else {
    CpuIntegrator cpu(map, v.options);
    for (size_t i = 0; i < rays.size(); i += batch) {
      const std::span<const Ray> part = rays.subspan(i, std::min<size_t>(batch, rays.size() - i));
      cpu.integrate(part);
      if (progress) progress(part.size());
    }
    v.stats = cpu.stats();
  }
  v.seconds.push_back(secondsSince(start));
  return map;
}


struct WallResult {
  std::string name;
  double kept = 0;
};

// OctoMap's model at 0.1 m, one scan position per batch (GrazingWallConfig: 20 positions of
// 4,000 beams at 3 to 17 degrees of incidence).
std::vector<WallResult> grazingWall(Scheduler& scheduler) {
  const GrazingWallConfig config;
  const std::vector<Ray> rays = grazingWallRays(config);
  OccupancyModel model = OccupancyModel::octomap();
  model.resolution = 0.1;
  const uint32_t batch = uint32_t(config.beamsPerPosition);
  std::vector<Variant> variants = {
      {"plain, GPU (two-phase)", true, {.order = UpdateOrder::TwoPhase}},
      {"plain, CPU sequential", false, {.order = UpdateOrder::Sequential}},
      {"NDT-OM, GPU (two-phase)", true, ndtOptions(NdtMode::Om, UpdateOrder::TwoPhase)},
      {"NDT-OM, CPU sequential", false, ndtOptions(NdtMode::Om, UpdateOrder::Sequential)},
  };
  std::vector<WallResult> results;
  for (Variant& v : variants)
    results.push_back({v.name, wallVoxelsKept(integrateOnce(scheduler, model, v, rays, {.batch = batch}), rays)});
  return results;
}

// What a run integrates, decided before the device is opened. The rays, the GPU cache and two
// host maps (the GPU NDT-OM map is kept beside the next) share the memory budget; a default
// run shrinks to fit it rather than being refused.
struct NdtPlan {
  LidarConfig lidar;
  OccupancyModel model;
  BenchMemoryPlan memory;
  NdtSizes sizes;
  std::vector<Ray> rays;
};

NdtPlan planNdtBench(const CommonOptions& options, const BenchNdtArgs& args) {
  NdtPlan plan;
  plan.model = args.model == "octomap" ? OccupancyModel::octomap() : OccupancyModel();
  plan.model.resolution = args.resolution;
  const uint64_t raysPerScan = plan.lidar.raysPerScan();
  plan.memory = planBenchMemory(
      {.budgetBytes = options.memoryBudgetBytes(),
       .budgetHint = options.memoryBudgetHint(),
       .rays = (args.rayTarget + raysPerScan - 1) / raysPerScan * raysPerScan,
       .raysGiven = args.raysGiven,
       .raysPerScan = raysPerScan,
       .bytesPerRay = sizeof(Ray) + 1,
       .cacheBytes = kCacheBytes,
       .minCacheBytes = minimumBenchCache(plan.lidar.maxRange, plan.model.resolution, plan.model.regionSize,
                                          OccupancyMap(plan.model, ndtLayout(NdtMode::Tm)).bytesPerRegion()),
       .maps = 2});
  if (!plan.memory.reduced.empty()) std::fprintf(stderr, "voxen bench ndt: %s\n", plan.memory.reduced.c_str());
  plan.lidar.scans = int(plan.memory.rays / raysPerScan);
  plan.sizes = {.batch = args.batch, .cacheBytes = plan.memory.cacheBytes, .mapBytes = plan.memory.mapBytes,
                .mapHint = options.memoryBudgetHint()};
  std::vector<uint8_t> noReturn;
  plan.rays = generateLidarRays(SyntheticScene::generate(1), plan.lidar, &noReturn);
  return plan;
}

// The ways of integrating the rays, timed; the indexes below name the ones compared.
std::vector<Variant> ndtVariants() {
  return {
      {"GPU plain, two-phase", true, {.order = UpdateOrder::TwoPhase}},
      {"GPU plain, sequential", true, {.order = UpdateOrder::Sequential}},
      {"GPU NDT-OM", true, ndtOptions(NdtMode::Om, UpdateOrder::TwoPhase)},
      {"GPU NDT-TM", true, ndtOptions(NdtMode::Tm, UpdateOrder::TwoPhase)},
      {"CPU plain, two-phase", false, {.order = UpdateOrder::TwoPhase}},
      {"CPU NDT-OM", false, ndtOptions(NdtMode::Om, UpdateOrder::TwoPhase)},
      {"CPU NDT-TM", false, ndtOptions(NdtMode::Tm, UpdateOrder::TwoPhase)},
  };
}
constexpr size_t kPlainTwoPhase = 0, kPlainSequential = 1, kGpuNdtOm = 2, kCpuNdtOm = 5;

// Every timed variant runs untimed first on a prefix of the rays (lavapipe compiles each
// pipeline at its first dispatch), then again as the trial the run's length is estimated from.
void warmUpAndAnnounce(Scheduler& scheduler, const NdtPlan& plan, const std::vector<Variant>& variants, int repeat) {
  const std::vector<Ray>& rays = plan.rays;
  // At least one whole batch: some passes pick their pipelines by how full a batch is (the
  // scans of the NDT free-space order take more levels over a full batch's rays), and a
  // shorter trial left those to compile inside the timed run.
  const size_t trialRays = std::min<size_t>(rays.size(), std::max<size_t>(16384, plan.sizes.batch));
  double estimate = 0;
  for (const Variant& v : variants) {
    Variant trial = v;
    if (v.gpu) integrateOnce(scheduler, plan.model, trial, std::span<const Ray>(rays).first(trialRays), plan.sizes);
    integrateOnce(scheduler, plan.model, trial, std::span<const Ray>(rays).first(trialRays), plan.sizes);
    estimate += repeat * trial.seconds.back() * double(rays.size()) / double(trialRays);
  }
  announceLongRun("bench ndt", estimate,
                  "from a trial of " + withCommas(trialRays) + " rays per variant, " + std::to_string(repeat) +
                      " repetition(s) of " + std::to_string(variants.size()) + " variants on " +
                      withCommas(rays.size()) + " rays; lower --rays or --repeat for a shorter run");
}

// What the timed run found beyond each variant's times.
struct NdtFindings {
  std::vector<double> omOverTwoPhase, omOverSequential;  // per repetition: NDT-OM's rate over plain's
  double agreement = 0;                                   // GPU and CPU NDT-OM maps, last repetition
  uint64_t coldPipelines = 0;
  double foldPerVoxel = 0;  // hit fold invocations per distinct sample voxel
  double plainHitMs = 0, ndtHitMs = 0, foldMs = 0, plainMissMs = 0, ndtMissMs = 0;  // GPU, last repetition
  std::vector<WallResult> wall;
};

// Repetitions interleave the variants, so a slow phase of a noisy machine hits them all;
// the ratios are taken per repetition and their medians reported.
NdtFindings runNdtVariants(Scheduler& scheduler, const NdtPlan& plan, std::vector<Variant>& variants, int repeat) {
  const std::vector<Ray>& rays = plan.rays;
  Progress progress("bench ndt", uint64_t(rays.size()) * variants.size() * repeat);
  uint64_t done = 0;
  const std::function<void(uint64_t)> advance = [&](uint64_t n) { progress.update(done += n); };
  NdtFindings found;
  const Variant& plainTwoPhase = variants[kPlainTwoPhase];
  const Variant& plainSequential = variants[kPlainSequential];
  const Variant& ndtOm = variants[kGpuNdtOm];
  const uint64_t firstDispatchesBefore = scheduler.stats().firstDispatches;
  for (int rep = 0; rep < repeat; ++rep) {
    std::optional<OccupancyMap> gpuNdt;
    for (Variant& v : variants) {
      OccupancyMap map = integrateOnce(scheduler, plan.model, v, rays, plan.sizes, advance);
      if (&v == &ndtOm && rep + 1 == repeat) gpuNdt = std::move(map);
      if (&v == &variants[kCpuNdtOm] && gpuNdt) found.agreement = classAgreement(*gpuNdt, map);
    }
    found.omOverTwoPhase.push_back(plainTwoPhase.seconds.back() / ndtOm.seconds.back());
    found.omOverSequential.push_back(plainSequential.seconds.back() / ndtOm.seconds.back());
  }
  progress.finish(done);
  found.coldPipelines = scheduler.stats().firstDispatches - firstDispatchesBefore;
  warnColdPipelines("bench ndt", found.coldPipelines);
  found.foldPerVoxel = double(ndtOm.stats.ndtFoldInvocations) / double(std::max<uint64_t>(ndtOm.stats.ndtSampleVoxels, 1));
  found.plainHitMs = passMs(plainTwoPhase.profile, {"occupancy hit pass"});
  found.ndtHitMs = passMs(ndtOm.profile, {"occupancy hit keys", "radix sort", "exclusive scan", "NDT runs", "compaction",
                                          "NDT hit fold"});
  found.foldMs = passMs(ndtOm.profile, {"NDT hit fold"});
  found.plainMissMs = passMs(plainTwoPhase.profile, {"occupancy miss pass"});
  found.ndtMissMs = passMs(ndtOm.profile, {"NDT free-space", "occupancy ordered list sizes"});
  found.wall = grazingWall(scheduler);
  return found;
}

void printNdtJson(const Device& device, const CommonOptions& options, const BenchNdtArgs& args, const NdtPlan& plan,
                  const std::vector<Variant>& variants, const NdtFindings& found) {
  const Variant& ndtOm = variants[kGpuNdtOm];
  Json out = benchSummary(device, {{"rays", plan.rays.size()},
                                   {"resolution", args.resolution},
                                   {"batch_size", args.batch},
                                   {"gpu_cache_mb", rounded(double(plan.memory.cacheBytes) / double(1 << 20), 1)},
                                   {"memory_budget_mb", options.memoryBudgetBytes() >> 20},
                                   {"model", args.model},
                                   {"repeat", args.repeat},
                                   {"variants", Json::array()},
                                   {"ndt_om_over_plain_two_phase_median", rounded(median(found.omOverTwoPhase), 4)},
                                   {"ndt_om_over_plain_sequential_median", rounded(median(found.omOverSequential), 4)},
                                   {"fold_invocations_per_sample_voxel", rounded(found.foldPerVoxel, 6)},
                                   {"fold_invocations", ndtOm.stats.ndtFoldInvocations},
                                   {"sample_voxels", ndtOm.stats.ndtSampleVoxels},
                                   {"plain_hit_pass_ms", rounded(found.plainHitMs, 3)},
                                   {"ndt_hit_passes_ms", rounded(found.ndtHitMs, 3)},
                                   {"ndt_fold_ms", rounded(found.foldMs, 3)},
                                   {"plain_miss_pass_ms", rounded(found.plainMissMs, 3)},
                                   {"ndt_free_space_ms", rounded(found.ndtMissMs, 3)},
                                   {"class_agreement_gpu_cpu_ndt_om", rounded(found.agreement, 6)},
                                   {"grazing_wall_kept", Json::object()},
                                   {"pipelines_first_used_while_timing", found.coldPipelines}});
  out["variants"] = jsonArray(variants, [](const Variant& v) -> Json {
    return {{"name", v.name},
            {"seconds", rounded(v.medianSeconds(), 4)},
            {"seconds_all", secondsList(v.seconds)},
            {"rays_per_s", rounded(v.raysPerSecond(), 1)},
            {"voxel_updates", v.stats.voxelUpdates},
            {"dropped_updates", v.stats.droppedUpdates}};
  });
  for (const WallResult& w : found.wall) out["grazing_wall_kept"][w.name] = rounded(w.kept, 4);
  printJson(out);
}

void printNdtText(const Device& device, const BenchNdtArgs& args, const NdtPlan& plan, const std::vector<Variant>& variants,
                  const NdtFindings& found) {
  const Variant& ndtOm = variants[kGpuNdtOm];
  std::printf("voxen bench ndt on %s (%s): synthetic lidar %d x %d, %d scans, %s rays at %.3g m, batches of %s, %s "
              "model; medians of %d repetitions\n\n",
              device.info().name.c_str(), device.info().driverName.c_str(), plan.lidar.rings, plan.lidar.columns,
              plan.lidar.scans, withCommas(plan.rays.size()).c_str(), args.resolution, withCommas(args.batch).c_str(),
              args.model.c_str(), args.repeat);
  const TextTable table({{"path", 24, Align::Left}, {"seconds", 10}, {"rays/s", 14}, {"voxel updates/s", 18}, {"dropped", 10}});
  table.printHead();
  for (const Variant& v : variants)
    table.printRow({v.name, fixed(v.medianSeconds(), 3), general(v.raysPerSecond(), 4),
                    general(v.stats.voxelUpdates / std::max(v.medianSeconds(), 1e-9), 4), count(v.stats.droppedUpdates)});
  std::printf("\nNDT-OM rate over plain (medians of per-repetition ratios): %.3f of two-phase, %.3f of sequential\n",
              median(found.omOverTwoPhase), median(found.omOverSequential));
  std::printf("hit fold: %s invocations for %s distinct sample voxels, %.4f per voxel (each batch's last workgroup "
              "pads to 64)\n",
              withCommas(ndtOm.stats.ndtFoldInvocations).c_str(), withCommas(ndtOm.stats.ndtSampleVoxels).c_str(),
              found.foldPerVoxel);
  std::printf("GPU ms (last repetition): plain hit pass %.1f, NDT hit passes %.1f (keys, sort, runs, compaction, "
              "fold %.1f); plain miss pass %.1f, NDT free space %.1f\n",
              found.plainHitMs, found.ndtHitMs, found.foldMs, found.plainMissMs, found.ndtMissMs);
  std::printf("class agreement of GPU and CPU NDT-OM (same batches, two-phase): %.4f%%\n", found.agreement * 100.0);
  std::printf("\ngrazing wall (OctoMap model, 0.1 m, 20 positions x 4,000 beams at 3-17 degrees, a position per "
              "batch): wall voxels left occupied\n");
  const TextTable wall({{"", 26, Align::Left}, {"", 7}}, "  ");
  for (const WallResult& w : found.wall) wall.printRow({w.name, percent(w.kept, 1)});
  std::printf("\nGPU NDT-OM passes (last repetition):\n");
  ndtOm.profile.print(std::cout);
}

int benchNdt(const CommonOptions& options, const BenchNdtArgs& args) {
  const NdtPlan plan = planNdtBench(options, args);
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Variant> variants = ndtVariants();
  warmUpAndAnnounce(scheduler, plan, variants, args.repeat);
  const NdtFindings found = runNdtVariants(scheduler, plan, variants, args.repeat);
  if (options.json)
    printNdtJson(device, options, args, plan, variants, found);
  else
    printNdtText(device, args, plan, variants, found);
  return 0;
}

CommandRun setupBenchNdt(CLI::App& command) {
  auto args = std::make_shared<BenchNdtArgs>();
  command.add_option("--rays", args->rayTarget, "rays to map (rounded up to whole scans; held in memory, 56 bytes each)")
      ->check(integerIn(65536, int64_t(1) << 26))
      ->capture_default_str();
  command.add_option("--resolution", args->resolution, "voxel edge in metres")
      ->check(numberIn(0.01, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--batch-size", args->batch, "rays per GPU batch (and per CPU reference batch)")
      ->check(integerIn(256, 1 << 22))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "repetitions (medians are reported)")
      ->check(integerIn(1, 100))
      ->capture_default_str();
  command.add_option("--model", args->model, "the occupancy model's preset (hit, miss and clamp values)")
      ->check(CLI::IsMember({"ohm", "octomap"}))
      ->capture_default_str();
  // The command outlives the run (the app owns it): whether --rays was given is read then.
  return [args, &command](const CommonOptions& options) {
    args->raysGiven = command.count("--rays") > 0;
    return benchNdt(options, *args);
  };
}

}  // namespace

static CommandRegistration registration{
    "bench ndt", "NDT-OM and NDT-TM beside plain occupancy and the CPU NDT reference, and the grazing wall", &setupBenchNdt,
                                        Uses::Gpu | Uses::ProfileAlways | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

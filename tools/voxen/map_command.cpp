// `voxen map`: a point cloud (plus trajectory) or a ray cloud to an occupancy map file, on
// the GPU (or with --cpu, the CPU reference), with progress and a summary.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "flag_reader.hpp"
#include "progress.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/io/ray_source.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen::cli {

namespace {

constexpr const char* kUsage =
    "map --cloud CLOUD.ply [--trajectory TRAJ.txt] --output MAP.vxm [--resolution 0.1] [--region 32]\n"
    "    [--hit 0.9] [--miss 0.45] [--threshold 0.5] [--clamp -2 3.511] [--model ohm|octomap] [--max-range M]\n"
    "    [--batch-size N] [--gpu-cache-mb N] [--voxel-mean] [--traversal] [--hit-miss] [--touch-time]\n"
    "    [--end-point-as-free] [--exclude-origin] [--exclude-sample] [--stop-on-occupied] [--forward-walk]\n"
    "    [--cpu] [--profile] [--json] [--quiet]";

struct MapArgs {
  std::string cloud, trajectory, output;
  std::string preset = "ohm";  // the model the probabilities started from
  OccupancyModel model;
  uint32_t layers = 0;
  IntegrationOptions integration;
  GpuIntegratorOptions gpu;
  bool cpu = false, quiet = false;
};

MapArgs parse(const std::vector<std::string>& args) {
  MapArgs m;
  // The model preset applies first, so explicit probabilities win whatever the order.
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--model") {
      if (args[i + 1] == "octomap") m.model = OccupancyModel::octomap();
      else if (args[i + 1] != "ohm") throw UsageError("--model: expected ohm or octomap, got '" + args[i + 1] + "'");
      m.preset = args[i + 1];
    }
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& f = flags.flag();
    if (f == "--cloud") m.cloud = flags.text();
    else if (f == "--trajectory") m.trajectory = flags.text();
    else if (f == "--output") m.output = flags.text();
    else if (f == "--resolution") m.model.resolution = flags.number(0.0, 1000.0, true, "metres");
    else if (f == "--region") m.model.regionSize = int32_t(flags.integer(4, 128));
    else if (f == "--hit") m.model.hitProbability = float(flags.number(0.5, 0.999999, true, "probability"));
    else if (f == "--miss") m.model.missProbability = float(flags.number(0.000001, 0.5, false, "probability"));
    else if (f == "--threshold") m.model.occupancyThreshold = float(flags.number(0.000001, 0.999999, false, "probability"));
    else if (f == "--clamp") {
      m.model.clampMin = float(flags.number(-100.0, 0.0, false, "log-odds"));
      m.model.clampMax = float(flags.number(0.0, 100.0, false, "log-odds"));
    } else if (f == "--model") flags.text();  // applied above
    else if (f == "--max-range") m.integration.maxRange = flags.number(0.0, 1e6, true, "metres");
    else if (f == "--batch-size") m.gpu.maxRaysPerBatch = uint32_t(flags.integer(1, 1 << 24));
    else if (f == "--gpu-cache-mb") m.gpu.cacheBytes = uint64_t(flags.integer(1, 1 << 20)) << 20;
    else if (f == "--voxel-mean") m.layers |= kLayerVoxelMean;
    else if (f == "--traversal") m.layers |= kLayerTraversal;
    else if (f == "--hit-miss") m.layers |= kLayerHitMiss;
    else if (f == "--touch-time") m.layers |= kLayerTouchTime;
    else if (f == "--end-point-as-free") m.integration.flags |= kRayEndPointAsFree;
    else if (f == "--exclude-origin") m.integration.flags |= kRayExcludeOrigin;
    else if (f == "--exclude-sample") m.integration.flags |= kRayExcludeSample;
    else if (f == "--stop-on-occupied") m.integration.flags |= kRayStopOnFirstOccupied;
    else if (f == "--forward-walk") m.integration.flags |= kRayForwardWalk;
    else if (f == "--cpu") m.cpu = true;
    else if (f == "--quiet") m.quiet = true;
    else throw UsageError("unexpected argument '" + f + "'\nusage: voxen " + kUsage);
  }
  if (m.cloud.empty()) throw UsageError(std::string("--cloud is required\nusage: voxen ") + kUsage);
  if (m.output.empty()) throw UsageError(std::string("--output is required\nusage: voxen ") + kUsage);
  try {
    m.model.validate();
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  return m;
}

// Runs whichever integrator, so the reading and progress loop is written once.
class Integrator {
 public:
  virtual ~Integrator() = default;
  virtual void integrate(std::span<const Ray> rays) = 0;
  virtual void finish() = 0;
  virtual const IntegrationStats& stats() const = 0;
};

class CpuRun : public Integrator {
 public:
  CpuRun(OccupancyMap& map, IntegrationOptions options) : cpu_(map, options) {}
  void integrate(std::span<const Ray> rays) override { cpu_.integrate(rays); }
  void finish() override {}
  const IntegrationStats& stats() const override { return cpu_.stats(); }

 private:
  CpuIntegrator cpu_;
};

class GpuRun : public Integrator {
 public:
  GpuRun(const CommonOptions& common, OccupancyMap& map, const MapArgs& args)
      : device_(common.device), library_(device_, common.libraryOptions()), scheduler_(device_, library_),
        gpu_(scheduler_, map, args.integration, args.gpu) {}
  void integrate(std::span<const Ray> rays) override { gpu_.integrate(rays); }
  void finish() override { gpu_.finish(); }
  const IntegrationStats& stats() const override { return gpu_.stats(); }
  Device& device() { return device_; }
  Scheduler& scheduler() { return scheduler_; }

 private:
  Device device_;
  ShaderLibrary library_;
  Scheduler scheduler_;
  GpuIntegrator gpu_;
};

}  // namespace

int mapCommand(const CommonOptions& options, const std::vector<std::string>& rawArgs) {
  const MapArgs args = parse(rawArgs);
  const auto start = std::chrono::steady_clock::now();
  RayReader reader(args.cloud, args.trajectory.empty() ? std::nullopt : std::optional<std::filesystem::path>(args.trajectory));
  OccupancyMap map(args.model, args.layers);
  std::unique_ptr<Integrator> integrator;
  GpuRun* gpuRun = nullptr;
  if (args.cpu) {
    integrator = std::make_unique<CpuRun>(map, args.integration);
  } else {
    auto run = std::make_unique<GpuRun>(options, map, args);
    gpuRun = run.get();
    integrator = std::move(run);
  }
  const std::string device = gpuRun ? gpuRun->device().info().name : "CPU reference";
  if (!args.quiet && !options.json)
    std::fprintf(stderr,
                 "voxen map: %s -> %s on %s (%s model: hit %.3g, miss %.3g, clamp [%.3g, %.3g]; resolution %.3g m, "
                 "region %d^3, layers: %s)\n",
                 args.cloud.c_str(), args.output.c_str(), device.c_str(), args.preset.c_str(), args.model.hitProbability,
                 args.model.missProbability, args.model.clampMin, args.model.clampMax, args.model.resolution,
                 args.model.regionSize, layerNames(args.layers).c_str());

  Progress progress("mapping", reader.totalPoints(), !args.quiet);
  std::vector<Ray> rays;
  const size_t chunk = std::max<size_t>(args.gpu.maxRaysPerBatch, 4096);
  for (;;) {
    rays.clear();
    if (reader.read(rays, chunk) == 0) break;
    integrator->integrate(rays);
    progress.update(reader.stats().points);
  }
  integrator->finish();
  progress.finish(reader.stats().points);
  const double integrateSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  saveMap(map, args.output);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const IntegrationStats& stats = integrator->stats();
  const RayLoadStats& load = reader.stats();
  const OccupancyMap::Counts counts = map.counts();
  const double raysPerSecond = integrateSeconds > 0 ? double(stats.rays) / integrateSeconds : 0.0;
  if (options.json) {
    std::printf("{\"rays\":%llu,\"samples\":%llu,\"skipped_non_finite\":%llu,\"skipped_outside_trajectory\":%llu,"
                "\"clipped_rays\":%llu,\"voxel_updates\":%llu,\"dropped_updates\":%llu,\"occupied_voxels\":%llu,"
                "\"free_voxels\":%llu,\"regions\":%llu,\"wall_s\":%.4f,\"rays_per_s\":%.1f,\"device\":%s,\"output\":%s}\n",
                (unsigned long long)stats.rays, (unsigned long long)load.points, (unsigned long long)load.skippedNonFinite,
                (unsigned long long)load.skippedOutsideTrajectory, (unsigned long long)stats.clippedRays,
                (unsigned long long)stats.voxelUpdates, (unsigned long long)stats.droppedUpdates,
                (unsigned long long)counts.occupied, (unsigned long long)counts.free, (unsigned long long)counts.regions, wall,
                raysPerSecond, jsonString(device).c_str(), jsonString(args.output).c_str());
  } else {
    std::printf("%s\n", reader.summary().c_str());
    std::printf("rays %s, samples %s, voxel updates %s, dropped updates %s, clipped rays %s\n", withCommas(stats.rays).c_str(),
                withCommas(load.points).c_str(), withCommas(stats.voxelUpdates).c_str(),
                withCommas(stats.droppedUpdates).c_str(), withCommas(stats.clippedRays).c_str());
    std::printf("occupied voxels %s, free voxels %s, regions %s\n", withCommas(counts.occupied).c_str(),
                withCommas(counts.free).c_str(), withCommas(counts.regions).c_str());
    std::printf("wall %.2f s (integration %.2f s), %.3g rays/s, %.3g voxel updates/s -> %s\n", wall, integrateSeconds,
                raysPerSecond, integrateSeconds > 0 ? double(stats.voxelUpdates) / integrateSeconds : 0.0,
                args.output.c_str());
  }
  if (options.profile && gpuRun) {
    std::printf("\nGPU time per pass:\n");
    gpuRun->scheduler().profile().print(std::cout);
    std::printf("\n%s", memoryReport(gpuRun->device()).c_str());
  }
  if (stats.droppedUpdates > 0)
    std::fprintf(stderr, "voxen map: warning: %llu voxel updates were dropped after the bounded CAS retries\n",
                 (unsigned long long)stats.droppedUpdates);
  return 0;
}

static CommandRegistration registration{"map", "rays from a point cloud (+ trajectory) into an occupancy map file",
                                        &mapCommand};

}  // namespace voxen::cli

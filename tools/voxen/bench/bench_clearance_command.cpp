// `voxen bench clearance`: clearance of a map built from a generated lidar run (0.25 m, 32^3
// regions by default; --tiles N repeats it N x N times side by side, for maps of more
// regions than the scene gives), per technique and range (5, 7.75 and 15.5 m, OHM's table; a
// technique whose blocks do not fit the memory at a range is listed as refused), on the GPU
// beside the CPU reference in the same run: total time, time per region, and accuracy
// against the CPU reference's exact distances (maximum and mean absolute error, the fraction
// of voxels within one voxel of exact, and voxels whose "none within range" differs).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "stopwatch.hpp"
#include "report/text_format.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/check/clearance_comparison.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct BenchClearanceArgs {
  std::vector<double> ranges{5.0, 7.75, 15.5};
  std::vector<std::string> techniques{"exact", "roi", "neighbour", "openlist"};
  double resolution = 0.25;
  int scans = 20;
  int tiles = 1;  // the generated map repeated tiles x tiles times side by side
  int repeat = 3;
};

// `map` repeated tiles x tiles times side by side along x and y (a region's copies keep its
// contents and height): a map of tiles^2 times the regions, for clearance at a scale the
// generated scene alone does not reach (its run touches a few dozen regions at any length).
OccupancyMap tiledMap(const OccupancyMap& map, int tiles) {
  RegionKey lo{INT32_MAX, INT32_MAX, INT32_MAX}, hi{INT32_MIN, INT32_MIN, INT32_MIN};
  for (const auto& [key, region] : map.regions()) {
    lo = {std::min(lo.x, key.x), std::min(lo.y, key.y), std::min(lo.z, key.z)};
    hi = {std::max(hi.x, key.x), std::max(hi.y, key.y), std::max(hi.z, key.z)};
  }
  OccupancyMap tiled(map.model(), map.layout());
  for (int ty = 0; ty < tiles; ++ty)
    for (int tx = 0; tx < tiles; ++tx)
      for (const auto& [key, region] : map.regions()) {
        Region& copy = tiled.region({key.x + tx * (hi.x - lo.x + 1), key.y + ty * (hi.y - lo.y + 1), key.z});
        copy.layers = region.layers;
        tiled.markOccupancyChanged(copy);
      }
  return tiled;
}

struct Row {
  double range = 0;
  std::string technique;
  uint64_t regions = 0;
  double gpuSeconds = 0, cpuSeconds = 0;
  ClearanceComparison accuracy;  // against the CPU reference's exact layer
  std::string profile;
  std::string refused;  // why the technique cannot run at this range (its memory), else empty
};

// The map the clearance is computed on: a generated lidar run at --resolution, tiled.
OccupancyMap clearanceBenchMap(const BenchClearanceArgs& args) {
  OccupancyModel model;
  model.resolution = args.resolution;
  OccupancyMap base(model);
  {
    LidarConfig lidar;
    lidar.scans = args.scans;
    std::vector<uint8_t> noReturn;
    const std::vector<Ray> rays = generateLidarRays(SyntheticScene::generate(1), lidar, &noReturn);
    CpuIntegrator integrator(base, {.order = UpdateOrder::TwoPhase});
    integrator.integrate(rays);
  }
  if (args.tiles > 1) base = tiledMap(base, args.tiles);
  return base;
}

// One technique at one range: the GPU beside the CPU reference (exact), --repeat times after
// an untimed repetition that compiles the pipelines; refused when its memory does not fit.
Row measureTechnique(const CommonOptions& options, Scheduler& scheduler, const OccupancyMap& base, double range,
                     const std::string& name, int repeat) {
  ClearanceOptions clearance;
  clearance.range = range;
  clearance.technique = clearanceTechniqueNamed(name);
  try {
    clearance.validate(base.model());
  } catch (const ClearanceSettingsError& e) {
    throw UsageError(std::string("--range: ") + e.what());
  }
  Row row;
  row.range = range;
  row.technique = name;
  std::vector<double> gpuTimes, cpuTimes;
  OccupancyMap exact = base;
  OccupancyMap gpuMap = base;
  for (int rep = 0; rep <= repeat; ++rep) {  // repetition 0 compiles the pipelines, untimed
    gpuMap = base;
    scheduler.resetProfile();
    ClearanceStats g;
    try {
      GpuClearance gpu(scheduler, gpuMap, clearance,
                       {.memoryLimitBytes = options.memoryBudgetBytes(), .memoryHint = options.memoryBudgetHint()});
      g = gpu.compute();
    } catch (const Error& e) {  // its blocks or the cache do not fit the memory at this range
      row.refused = e.what();
      return row;
    }
    exact = base;
    const ClearanceStats c = computeClearanceCpu(exact, clearance);
    if (rep == 0) continue;
    gpuTimes.push_back(g.seconds);
    cpuTimes.push_back(c.seconds);
    row.regions = g.regions;
  }
  row.gpuSeconds = median(gpuTimes);
  row.cpuSeconds = median(cpuTimes);
  row.accuracy = compareClearance(exact, gpuMap);
  row.profile = profileText(scheduler.profile());
  return row;
}

double perRegion(double seconds, uint64_t regions) { return regions ? seconds * 1e3 / double(regions) : 0.0; }

Json rowJson(const Row& r) {
  if (!r.refused.empty()) return {{"technique", r.technique}, {"range", r.range}, {"refused", r.refused}};
  return {{"technique", r.technique},
          {"range", r.range},
          {"regions", r.regions},
          {"total_s", rounded(r.gpuSeconds, 4)},
          {"ms_per_region", rounded(perRegion(r.gpuSeconds, r.regions), 3)},
          {"cpu_ms_per_region", rounded(perRegion(r.cpuSeconds, r.regions), 3)},
          {"max_error_m", rounded(r.accuracy.maxError, 6)},
          {"mean_error_m", rounded(r.accuracy.meanError(), 6)},
          {"within_one_voxel", rounded(r.accuracy.withinOneVoxelFraction(), 6)},
          {"none_mismatches", r.accuracy.noneMismatches}};
}

void printClearanceText(const Device& device, const BenchClearanceArgs& args, size_t regions, const std::vector<Row>& rows) {
  std::printf("voxen bench clearance on %s: a map of %zu regions of 32^3 at %g m from a generated lidar run (%d scans%s); "
              "GPU medians of %d repetitions beside the CPU reference (exact transform)\n\n",
              device.info().name.c_str(), regions, args.resolution, args.scans,
              args.tiles > 1 ? (", " + std::to_string(args.tiles) + " x " + std::to_string(args.tiles) + " tiles").c_str() : "",
              args.repeat);
  const TextTable table({{"technique", 10, Align::Left},
                         {"range m", 9, Align::Left},
                         {"regions", 8},
                         {"total s", 10},
                         {"ms/region", 12},
                         {"CPU ms/region", 14},
                         {"max err m", 12},
                         {"mean err m", 12},
                         {"<=1 voxel", 10},
                         {"none!=", 8}});
  table.printHead();
  for (const Row& r : rows)
    if (!r.refused.empty())  // the row ends with why
      table.printRow({r.technique, general(r.range), "refused: " + r.refused});
    else
      table.printRow({r.technique, general(r.range), count(r.regions), fixed(r.gpuSeconds, 3),
                      fixed(perRegion(r.gpuSeconds, r.regions), 2), fixed(perRegion(r.cpuSeconds, r.regions), 2),
                      general(r.accuracy.maxError, 2), general(r.accuracy.meanError(), 2),
                      percent(r.accuracy.withinOneVoxelFraction(), 3), count(r.accuracy.noneMismatches)});
  for (const Row& r : rows)
    if (r.refused.empty())
      std::printf("\n%s at %g m, GPU passes (last repetition):\n%s", r.technique.c_str(), r.range, r.profile.c_str());
}

int benchClearance(const CommonOptions& options, const BenchClearanceArgs& args) {
  const OccupancyMap base = clearanceBenchMap(args);
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Row> rows;
  for (double range : args.ranges)
    for (const std::string& name : args.techniques)
      rows.push_back(measureTechnique(options, scheduler, base, range, name, args.repeat));
  if (options.json) {
    printJson({{"device", device.info().name}, {"resolution", args.resolution}, {"scans", args.scans},
               {"tiles", args.tiles}, {"regions", base.regions().size()}, {"rows", jsonArray(rows, rowJson)}});
    return 0;
  }
  printClearanceText(device, args, base.regions().size(), rows);
  return 0;
}

CommandRun setupBenchClearance(CLI::App& command) {
  auto args = std::make_shared<BenchClearanceArgs>();
  command.add_option("--range", args->ranges, "search ranges in metres (default 5 7.75 15.5)")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open));
  command.add_option("--technique", args->techniques, "the GPU techniques to measure (default: all four)")
      ->check(CLI::IsMember({"exact", "roi", "neighbour", "openlist"}));
  command.add_option("--resolution", args->resolution, "voxel edge in metres")
      ->check(numberIn(0.01, 10.0, "metres"))
      ->capture_default_str();
  command.add_option("--scans", args->scans, "lidar scans the map is built from (64 x 1024 rays each)")
      ->check(integerIn(1, 1000))
      ->capture_default_str();
  command.add_option("--tiles", args->tiles,
                     "repeat the generated map N x N times side by side: N^2 times the regions (the scene alone "
                     "gives a few dozen at any --scans)")
      ->check(integerIn(1, 64))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "repetitions (medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  return [args](const CommonOptions& options) { return benchClearance(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench clearance", "clearance per technique and range, GPU beside the CPU reference, with accuracy",
                                        &setupBenchClearance,
                                        Uses::Gpu | Uses::ProfileAlways | Uses::Json};

}  // namespace voxen::cli

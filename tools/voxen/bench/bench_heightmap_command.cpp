// `voxen bench heightmap`: the heightmap (voxen/heightmap/heightmap.hpp) of a synthetic
// terrain of --size x --size metres at 0.1 m, on the GPU beside the CPU reference in the same
// run: medians of --repeat calls each, the GPU's whole call (regions to the GPU, the passes,
// the cells back) and its passes alone, and the cells compared bit for bit. The terrain:
// rolling ground (two sine waves, 0.8 m high), a 0.3 m step every 8 m, and a deck 2.5 m up
// over a quarter of each 8 m tile (a bridge, two levels), observed free for 2.5 m above the
// ground and unknown beyond, as a lidar sees it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_heightmap_live.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen::cli {

namespace {

struct BenchHeightmapArgs {
  std::vector<double> sizes{20.0, 40.0};
  int repeat = 3;
};

struct Result {
  double metres = 0;
  uint32_t columns = 0;
  uint64_t regions = 0;
  bool exact = false;
  double cpuMs = 0, gpuMs = 0, passMs = 0;
};

// The synthetic terrain of `metres` square at 0.1 m, from (0, 0).
OccupancyMap terrain(double metres) {
  OccupancyMap map;
  const int32_t cells = int32_t(std::lround(metres / 0.1));
  const float hit = 2.0f, miss = -1.0f;
  for (int32_t y = 0; y < cells; ++y)
    for (int32_t x = 0; x < cells; ++x) {
      const double wx = x * 0.1, wy = y * 0.1;
      int32_t ground = int32_t(std::floor(4.0 + 2.0 * std::sin(wx / 5.0) + 2.0 * std::cos(wy / 7.0)));
      if (std::fmod(wx, 8.0) >= 4.0) ground += 3;  // a 0.3 m step every 8 m
      const bool deck = std::fmod(wx, 8.0) < 4.0 && std::fmod(wy, 8.0) < 4.0;
      for (int32_t z = ground - 1; z <= ground + 25; ++z) {
        const VoxelCoord v{x, y, z};
        const bool occupied = z <= ground || (deck && z == ground + 25);
        map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = occupied ? hit : miss;
      }
    }
  return map;
}

Result run(Scheduler& scheduler, double metres, int repeat) {
  const OccupancyMap map = terrain(metres);
  HeightmapOptions options;
  Result r;
  r.metres = metres;
  r.regions = map.regions().size();
  const uint64_t cacheBytes = std::max<uint64_t>(256ull << 20, (r.regions + 1) * RegionCache::bytesPerRegion(map));
  Heightmap gpu = computeHeightmapGpu(scheduler, map, options, cacheBytes);  // pipelines made, untimed
  std::vector<double> cpuTimes, gpuTimes, passTimes;
  Heightmap cpu;
  for (int i = 0; i < repeat; ++i) {
    auto start = Clock::now();
    cpu = computeHeightmap(map, options);
    cpuTimes.push_back(secondsSince(start) * 1e3);
    GpuHeightmapStats stats;
    start = Clock::now();
    gpu = computeHeightmapGpu(scheduler, map, options, cacheBytes, &stats);
    gpuTimes.push_back(secondsSince(start) * 1e3);
    passTimes.push_back(stats.gpuMs);
  }
  r.columns = cpu.width() * cpu.height();
  r.exact = cpu.cells().size() == gpu.cells().size() &&
            std::memcmp(cpu.cells().data(), gpu.cells().data(), cpu.cells().size() * sizeof(gpu::HeightmapCell)) == 0 &&
            cpu.columnFlags() == gpu.columnFlags();
  r.cpuMs = median(cpuTimes);
  r.gpuMs = median(gpuTimes);
  r.passMs = median(passTimes);
  return r;
}

int benchHeightmap(const CommonOptions& options, const BenchHeightmapArgs& args) {
  const double largest = *std::max_element(args.sizes.begin(), args.sizes.end());
  // About 28 voxels of 4 bytes per column in the map, its regions on the GPU, and the cells.
  const uint64_t bytes = uint64_t(largest * largest * 100.0 * (2 * 32 * 4 + 4 * 40 * 2));
  try {
    checkMemoryBudget(bytes, options.memoryBudgetBytes(), "--size " + std::to_string(largest), options.memoryBudgetHint() + " or lower --size");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Result> results;
  for (double metres : args.sizes) results.push_back(run(scheduler, metres, args.repeat));
  const bool allExact = std::all_of(results.begin(), results.end(), [](const Result& r) { return r.exact; });
  if (options.json) {
    printJson(jsonArray(results, [&](const Result& r) -> Json {
      return {{"size_m", r.metres},
              {"columns", r.columns},
              {"regions", r.regions},
              {"exact", r.exact},
              {"gpu_ms", rounded(r.gpuMs, 3)},
              {"gpu_pass_ms", rounded(r.passMs, 3)},
              {"cpu_ms", rounded(r.cpuMs, 3)},
              {"gpu_columns_per_s", rounded(r.columns / std::max(r.gpuMs, 1e-9) * 1e3, 1)},
              {"cpu_columns_per_s", rounded(r.columns / std::max(r.cpuMs, 1e-9) * 1e3, 1)},
              {"device", device.info().name}};
    }));
    return allExact ? 0 : 1;
  }
  std::printf("voxen bench heightmap on %s: a synthetic terrain at 0.1 m (robot 0.8 m, 4 levels), medians of %d calls\n\n",
              device.info().name.c_str(), args.repeat);
  const TextTable table({{"size", 10}, {"columns", 11}, {"regions", 8}, {"GPU call", 10}, {"GPU passes", 11}, {"CPU ref", 10},
                         {"GPU/CPU", 8}, {"exact", 6}});
  table.printHead();
  for (const Result& r : results)
    table.printRow({fixed(r.metres, 0, " m"), withCommas(r.columns), withCommas(r.regions), fixed(r.gpuMs, 2, "ms"),
                    fixed(r.passMs, 2, "ms"), fixed(r.cpuMs, 2, "ms"), fixed(r.cpuMs / std::max(r.gpuMs, 1e-9), 2, "x"),
                    r.exact ? "yes" : "NO"});
  std::printf("\nGPU call: the whole computeHeightmapGpu (the map's regions to the GPU, the column and neighbour passes, the cells "
              "back); GPU passes: their timestamps alone; CPU ref: the CPU reference on the machine's cores; exact: the GPU's cells "
              "equal the CPU's bit for bit.\n");
  return allExact ? 0 : 1;
}

CommandRun setupBenchHeightmap(CLI::App& command) {
  auto args = std::make_shared<BenchHeightmapArgs>();
  auto live = std::make_shared<BenchHeightmapLiveArgs>();
  auto liveFlag = std::make_shared<bool>(false);
  CLI::Option* liveOption =
      command.add_flag("--live", *liveFlag,
                       "instead: map the README run and, after each of its last --probes scans, time the heightmap's "
                       "incremental update (the changed region columns only) beside the whole heightmap computed again");
  command.add_option("--scans", live->scans, "--live: scans of the README run to map")->check(integerIn(2, 10000))->needs(liveOption)->capture_default_str();
  command.add_option("--probes", live->probes, "--live: the last scans, after each of which the update is timed")
      ->check(integerIn(1, 1000))
      ->needs(liveOption)
      ->capture_default_str();
  CLI::Option* sizeOption = command.add_option("--size", args->sizes, "terrain edges in metres (default 20 40; 100 is the issue's real-GPU size)")
      ->check(numberIn(1.0, 2000.0, "metres"));
  CLI::Option* repeatOption = command.add_option("--repeat", args->repeat, "calls per size (medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  liveOption->excludes(sizeOption)->excludes(repeatOption);
  return [args, live, liveFlag](const CommonOptions& options) {
    return *liveFlag ? benchHeightmapLive(options, *live) : benchHeightmap(options, *args);
  };
}

}  // namespace

static CommandRegistration registration{"bench heightmap", "heightmap of a synthetic terrain, GPU beside the CPU reference",
                                        &setupBenchHeightmap, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

// `voxen bench distance [--size N...] [--density P] [--repeat R]`: the exact 2D squared distance
// transform (voxen/distance/distance_transform_2d.hpp) of a random N x N grid, on the GPU beside
// the single-threaded CPU reference in the same run, their results compared cell for cell
// (exit 1 when they differ). The GPU's time is the whole call (upload, both passes, readback)
// and its passes alone (GPU timestamps); medians of the repetitions after one warm-up (the
// first dispatch compiles the pipelines on some drivers).
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/distance/distance_transform_2d.hpp"
#include "voxen/gpu/distance/distance_shared.h"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace voxen::cli {

namespace {

struct BenchDistanceArgs {
  std::vector<uint32_t> sizes{1000};
  double density = 2.0;  // percent of the cells that are obstacles
  int repeat = 5;
};

struct Result {
  uint32_t size = 0;
  bool exact = true;
  double cpuMs = 0, gpuMs = 0, passMs = 0;
};

Result runSize(Scheduler& scheduler, uint32_t n, double density, int repeat) {
  SplitMix random(n);
  std::vector<uint8_t> grid(size_t(n) * n);
  for (uint8_t& cell : grid) cell = double(random.next() % 1000000) < density * 1e4;
  Result r;
  r.size = n;
  std::vector<double> cpuMs, gpuMs, passMs;
  for (int rep = 0; rep <= repeat; ++rep) {  // repetition 0 warms up
    auto start = Clock::now();
    const std::vector<uint64_t> cpu = squaredDistanceTransform2D(grid, n, n);
    const double cpuTime = secondsSince(start) * 1e3;
    DistanceTransformStats stats;
    start = Clock::now();
    const std::vector<uint64_t> gpu = squaredDistanceTransform2DGpu(scheduler, grid, n, n, &stats);
    const double gpuTime = secondsSince(start) * 1e3;
    r.exact = r.exact && gpu == cpu;
    if (rep == 0) continue;
    cpuMs.push_back(cpuTime), gpuMs.push_back(gpuTime), passMs.push_back(stats.gpuMs);
  }
  r.cpuMs = median(cpuMs), r.gpuMs = median(gpuMs), r.passMs = median(passMs);
  return r;
}

int benchDistance(const CommonOptions& options, const BenchDistanceArgs& args) {
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Result> results;
  for (uint32_t n : args.sizes) results.push_back(runSize(scheduler, n, args.density, args.repeat));
  bool exact = true;
  for (const Result& r : results) exact = exact && r.exact;
  if (options.json) {
    printJson(benchSummary(device, {{"density_percent", args.density},
                                    {"repeat", args.repeat},
                                    {"exact", exact},
                                    {"sizes", jsonArray(results, [](const Result& r) -> Json {
                                       return {{"size", r.size},
                                               {"exact", r.exact},
                                               {"cpu_ms", rounded(r.cpuMs, 3)},
                                               {"gpu_ms", rounded(r.gpuMs, 3)},
                                               {"gpu_pass_ms", rounded(r.passMs, 3)}};
                                     })}}));
    return exact ? 0 : 1;
  }
  std::printf("voxen bench distance on %s: %g%% obstacles, medians of %d repetitions\n\n", device.info().name.c_str(), args.density,
              args.repeat);
  const TextTable table({{"grid", 13}, {"exact", 6}, {"CPU reference", 14}, {"GPU call", 10}, {"GPU passes", 11}, {"CPU / GPU", 10}});
  table.printHead();
  for (const Result& r : results)
    table.printRow({std::to_string(r.size) + " x " + std::to_string(r.size), r.exact ? "yes" : "NO", fixed(r.cpuMs, 2, " ms"),
                    fixed(r.gpuMs, 2, " ms"), fixed(r.passMs, 2, " ms"), fixed(r.gpuMs > 0 ? r.cpuMs / r.gpuMs : 0.0, 2, "x")});
  std::printf("\nCPU reference: one host thread. GPU call: upload, the row and column passes and the readback, as a caller "
              "waits for them; GPU passes: their GPU timestamps. exact: every cell's squared distance equal.\n");
  return exact ? 0 : 1;
}

CommandRun setupBenchDistance(CLI::App& command) {
  auto args = std::make_shared<BenchDistanceArgs>();
  command.add_option("--size", args->sizes, "grid sides in cells (default 1000)")
      ->check(integerIn(1, int64_t(gpu::kMaxDistanceLine)));
  command.add_option("--density", args->density, "percent of the cells that are obstacles (default 2)")
      ->check(numberIn(0.0, 100.0, "percent"));
  command.add_option("--repeat", args->repeat, "repetitions (medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  return [args](const CommonOptions& options) { return benchDistance(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench distance",
                                        "the exact 2D distance transform (costmaps, ESDF slices), GPU beside the CPU reference",
                                        &setupBenchDistance, Uses::Gpu | Uses::Json};

}  // namespace voxen::cli

// `voxen bench concurrency`: does sharing a Mapper between a mapping thread and query threads
// waste work? A generated lidar run (64 x 1024 scans, 65,536 rays each) is mapped scan by
// scan through voxen::Mapper, each scan published as a snapshot (Mapper::snapshot()); query
// threads ask batches of occupancy queries (random points over the run's extent) of the latest
// snapshot (Mapper::latestSnapshot()). Measured three ways in one run: the mapping alone
// (rays per second), the queries alone on the finished map (points per second), and both at
// once (each rate while the other runs). Reported: each rate beside its own alone, the two
// fractions and their sum. On one GPU both compete for it: on lavapipe, where the "GPU" is
// the same two CPU cores, the goal is that the fractions add up to at least 0.9 (sharing
// wastes no work); on a real GPU each at least 0.8. The medians of --repeat runs; the last
// concurrent batch's answers are checked against the CPU reference on its snapshot.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/mapper.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/testdata/split_mix.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct BenchConcurrencyArgs {
  int scans = 20;
  double resolution = 0.1;
  uint64_t points = 1u << 17;  // per query batch
  unsigned queryThreads = 1;
  int repeat = 3;
};

struct Rates {
  double mapRaysPerSecond = 0;    // alone
  double queryPointsPerSecond = 0;  // alone
  double mapShared = 0;           // rays/s while the queries run
  double queryShared = 0;         // points/s while the mapping runs
  uint64_t sharedBatches = 0;     // query batches answered during the shared mapping
  uint64_t snapshotsSeen = 0;     // distinct snapshot versions those batches read
  bool match = true;
};

// Points spread over the box the rays span.
std::vector<glm::dvec3> randomPoints(std::span<const Ray> rays, uint64_t count) {
  glm::dvec3 lo(1e300), hi(-1e300);
  for (const Ray& r : rays) lo = glm::min(lo, glm::min(r.origin, r.sample)), hi = glm::max(hi, glm::max(r.origin, r.sample));
  SplitMix rng(38);
  auto unit = [&] { return double(rng.next() >> 11) * 0x1.0p-53; };
  std::vector<glm::dvec3> points(count);
  for (glm::dvec3& p : points) p = lo + (hi - lo) * glm::dvec3(unit(), unit(), unit());
  return points;
}

MapperOptions mapperOptions(double resolution, size_t raysPerScan) {
  MapperOptions options;
  options.model.resolution = resolution;
  options.run.gpu.cacheBytes = 256ull << 20;
  options.run.gpu.maxRaysPerBatch = uint32_t(raysPerScan);
  return options;
}

// Maps every scan, publishing each; returns the wall seconds.
double mapScans(Mapper& mapper, std::span<const Ray> rays, size_t perScan) {
  const auto start = Clock::now();
  for (size_t i = 0; i < rays.size(); i += perScan) {
    mapper.integrate(rays.subspan(i, std::min(perScan, rays.size() - i)));
    mapper.snapshot();
  }
  return secondsSince(start);
}

// Query threads asking batches of `points` of the latest snapshot until `stop`; the points
// answered and the batches, and whether the last batch equals the CPU reference.
struct QueryLoad {
  std::atomic<uint64_t> answered{0}, batches{0};
  std::atomic<uint64_t> versionsSeen{0};
  std::atomic<bool> mismatch{false};
};

void askUntil(const Mapper& mapper, std::span<const glm::dvec3> points, const std::atomic<bool>& stop, QueryLoad& load,
              bool checkLast) {
  std::vector<OccupancyAnswer> answers(points.size());
  uint64_t lastVersion = 0;
  MapSnapshot last;
  while (!stop.load()) {
    const MapSnapshot s = mapper.latestSnapshot();
    s.occupancy(points, answers);
    if (s.version() != lastVersion) ++load.versionsSeen, lastVersion = s.version();
    load.answered += points.size();
    ++load.batches;
    last = s;
  }
  if (checkLast && last.valid() && answers != cpuOccupancy(last.map(), points)) load.mismatch = true;
}

Rates measure(Context& context, const BenchConcurrencyArgs& args, std::span<const Ray> rays, size_t perScan,
              std::span<const glm::dvec3> points) {
  Rates r;
  const MapperOptions options = mapperOptions(args.resolution, perScan);
  {  // The mapping alone.
    Mapper mapper(context, options);
    r.mapRaysPerSecond = double(rays.size()) / mapScans(mapper, rays, perScan);
    // The queries alone, on the finished map, for as long as the mapping took (at least 1 s).
    const double seconds = std::max(1.0, double(rays.size()) / r.mapRaysPerSecond);
    QueryLoad load;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    for (unsigned t = 0; t < args.queryThreads; ++t)
      threads.emplace_back([&, t] { askUntil(mapper, points, stop, load, t == 0); });
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (std::thread& t : threads) t.join();
    r.queryPointsPerSecond = double(load.answered) / secondsSince(start);
    r.match = r.match && !load.mismatch;
  }
  {  // Both at once, on a new Mapper.
    Mapper mapper(context, options);
    QueryLoad load;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < args.queryThreads; ++t)
      threads.emplace_back([&, t] { askUntil(mapper, points, stop, load, t == 0); });
    const double mapSeconds = mapScans(mapper, rays, perScan);
    const uint64_t answeredWhileMapping = load.answered.load();
    stop = true;
    for (std::thread& t : threads) t.join();
    r.mapShared = double(rays.size()) / mapSeconds;
    r.queryShared = double(answeredWhileMapping) / mapSeconds;
    r.sharedBatches = load.batches;
    r.snapshotsSeen = load.versionsSeen;
    r.match = r.match && !load.mismatch;
  }
  return r;
}

int benchConcurrency(const CommonOptions& options, const BenchConcurrencyArgs& args) {
  LidarConfig lidar;  // 64 rings x 1024 columns: 65,536 rays a scan
  lidar.scans = args.scans;
  try {
    checkMemoryBudget(uint64_t(lidar.rayCount()) * sizeof(Ray) + (512ull << 20), options.memoryBudgetBytes(),
                      "--scans " + std::to_string(args.scans) + " of " + std::to_string(lidar.raysPerScan()) +
                          " rays held in memory beside the GPU caches",
                      options.memoryBudgetHint() + " or lower --scans");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const std::vector<Ray> rays = generateLidarRays(SyntheticScene::generate(1), lidar);
  const size_t perScan = lidar.raysPerScan();
  const std::vector<glm::dvec3> points = randomPoints(rays, args.points);

  Context context(options.contextOptions());
  {  // Pipelines compiled (lavapipe compiles at the first dispatch) outside the timing.
    Mapper warm(context, mapperOptions(args.resolution, perScan));
    warm.integrate(std::span<const Ray>(rays).first(std::min<size_t>(perScan, rays.size())));
    (void)warm.snapshot().occupancy(points);
  }
  std::vector<Rates> runs;
  for (int i = 0; i < args.repeat; ++i) runs.push_back(measure(context, args, rays, perScan, points));
  auto med = [&](double Rates::*field) {
    std::vector<double> v;
    for (const Rates& r : runs) v.push_back(r.*field);
    return median(v);
  };
  const double mapAlone = med(&Rates::mapRaysPerSecond), queryAlone = med(&Rates::queryPointsPerSecond);
  const double mapShared = med(&Rates::mapShared), queryShared = med(&Rates::queryShared);
  std::vector<double> sums;
  for (const Rates& r : runs)
    sums.push_back(r.mapShared / r.mapRaysPerSecond + (r.queryPointsPerSecond > 0 ? r.queryShared / r.queryPointsPerSecond : 0.0));
  const double sum = median(sums);
  const bool match = std::all_of(runs.begin(), runs.end(), [](const Rates& r) { return r.match; });

  if (options.json) {
    printJson(benchSummary(context.device(), {{"scans", args.scans},
                                              {"rays", rays.size()},
                                              {"resolution", args.resolution},
                                              {"points_per_batch", args.points},
                                              {"query_threads", args.queryThreads},
                                              {"repeat", args.repeat},
                                              {"map_rays_per_s_alone", rounded(mapAlone, 0)},
                                              {"map_rays_per_s_shared", rounded(mapShared, 0)},
                                              {"query_points_per_s_alone", rounded(queryAlone, 0)},
                                              {"query_points_per_s_shared", rounded(queryShared, 0)},
                                              {"map_fraction", rounded(mapShared / mapAlone, 3)},
                                              {"query_fraction", rounded(queryShared / queryAlone, 3)},
                                              {"fraction_sum", rounded(sum, 3)},
                                              {"shared_batches", runs.back().sharedBatches},
                                              {"snapshots_seen", runs.back().snapshotsSeen},
                                              {"answers_match_cpu", match}}));
  } else {
    std::printf("voxen bench concurrency on %s (%s): %d scans of %s rays at %.3g m, each published as a snapshot; "
                "%u query thread(s) asking %s-point occupancy batches of the latest snapshot; medians of %d runs\n\n",
                context.deviceInfo().name.c_str(), context.deviceInfo().driverName.c_str(), args.scans,
                withCommas(perScan).c_str(), args.resolution, args.queryThreads, withCommas(args.points).c_str(), args.repeat);
    const TextTable table({{"work", 10, Align::Left}, {"alone /s", 14}, {"shared /s", 14}, {"fraction", 10}});
    table.printHead();
    table.printRow({"mapping", general(mapAlone, 4), general(mapShared, 4), fixed(mapShared / mapAlone, 3)});
    table.printRow({"queries", general(queryAlone, 4), general(queryShared, 4), fixed(queryShared / queryAlone, 3)});
    std::printf("\nfractions add up to %.3f (goal: at least 0.9 where both share the CPU cores, as on lavapipe; on a real\n"
                "GPU each at least 0.8). mapping: rays per second, each scan integrated and published; queries: occupancy\n"
                "points per second; shared: while the other runs (%llu batches on %llu snapshots in the last run).\n"
                "Answers of the last batch equal the CPU reference on its snapshot: %s.\n",
                sum, (unsigned long long)runs.back().sharedBatches, (unsigned long long)runs.back().snapshotsSeen,
                match ? "yes" : "NO");
  }
  if (!match) throw Error("the snapshot queries' answers differ from the CPU reference's");
  return 0;
}

CommandRun setupBenchConcurrency(CLI::App& command) {
  auto args = std::make_shared<BenchConcurrencyArgs>();
  command.add_option("--scans", args->scans, "lidar scans of 65,536 rays (held in memory)")
      ->check(integerIn(1, 4096))
      ->capture_default_str();
  command.add_option("--resolution", args->resolution, "voxel edge in metres")
      ->check(numberIn(kMinResolution, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--points", args->points, "points per query batch")
      ->check(integerIn(1, 1 << 24))
      ->capture_default_str();
  command.add_option("--query-threads", args->queryThreads, "threads asking queries")
      ->check(integerIn(1, 64))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "runs (the medians are reported)")->check(integerIn(1, 100))->capture_default_str();
  return [args](const CommonOptions& options) { return benchConcurrency(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "bench concurrency",
    "a mapping thread and query threads on one Mapper: each one's rate beside its rate alone (snapshots)",
    &setupBenchConcurrency, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

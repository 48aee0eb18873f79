// `voxen bench loop`: a planner's frame loop on the README run (issue 38, item 5's numbers).
// Each frame: one lidar scan of 64 x 1024 rays (65,536) integrated by a GPU Mapper, the map
// brought back to the host, the clearance brought up to date (only the regions within range
// of an obstacle change), and a batch of clearance queries around the sensor. Per stage, the
// median over the frames, beside the scan's integration time measured alone (the same frames
// in a Mapper that computes no clearance): the goal is clearance and queries together within
// the scan's integration. The rays are the README run's (`voxen generate --scans 100 --speed
// 3`: SyntheticScene seed 1 at 3 m/s; its first --frames scans), every ray of a scan as
// `voxen bench frames` integrates it.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/clearance_changes.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/mapper.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct BenchLoopArgs {
  int frames = 20;
  double resolution = 0.1;
  double range = 2.0;
  uint64_t queries = 100000;
  double speed = 3.0;  // the README run's
  bool unknownFree = false;
};

struct LoopFrame {
  double scanMs = 0, syncMs = 0, clearanceMs = 0, queryMs = 0;
  double scanAloneMs = 0;             // the same frame in a Mapper without clearance
  uint64_t recomputed = 0;            // regions the clearance update computed
  uint64_t voxelsRecomputed = 0;      // voxels of them it computed (parts of regions: clearance_changes.hpp)
  uint64_t logOddsStale = 0;          // regions a log-odds change within range makes stale (the rule before)
  uint64_t regions = 0;               // the map's, after the frame
};

// What the rule before issue 38 item 5 recomputed: every region with a log-odds change (any
// update, the occupancyStamp) within range since its clearance was computed.
uint64_t staleByLogOdds(const OccupancyMap& map, const ClearanceOptions& options) {
  const LayerId layer = clearanceLayer();
  uint64_t stale = 0;
  for (const auto& [key, region] : map.regions()) {
    const uint64_t computed = map.layout().has(layer) ? region.derivedStamp[layer] : 0;
    bool due = computed == 0;
    for (const RegionKey& k : regionsWithinRange(key, map.model(), options)) {
      if (due) break;
      const Region* near = map.findRegion(k);
      due = near && near->occupancyStamp > computed;
    }
    stale += due;
  }
  return stale;
}

// `count` points uniform in a box around the sensor: 8 m either way across, the floor to 3 m
// (where a ground robot's planner asks), a fixed sequence per frame.
std::vector<glm::dvec3> queryPoints(const glm::dvec3& sensor, uint64_t count, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto unit = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) / double(1ull << 53);
  };
  std::vector<glm::dvec3> points(count);
  for (glm::dvec3& p : points) p = {sensor.x - 8.0 + 16.0 * unit(), sensor.y - 8.0 + 16.0 * unit(), 3.0 * unit()};
  return points;
}

// The voxels the Mapper's clearance update will compute, from the plan it makes (the same
// functions, called here outside the timing): nullopt where it computes whole regions.
std::optional<uint64_t> plannedVoxels(const OccupancyMap& map, const ClearanceOptions& clearance,
                                      const std::optional<ClearanceBaseline>& baseline) {
  if (!baseline) return std::nullopt;
  const std::optional<ClearancePlan> plan =
      planClearanceUpdate(map, clearance, *baseline, clearanceComputesParts(map.model(), clearance));
  if (!plan) return std::nullopt;
  uint64_t voxels = 0;
  for (const ClearanceTarget& t : plan->targets) voxels += t.voxels();
  return voxels;
}

std::vector<double> column(const std::vector<LoopFrame>& frames, double LoopFrame::*field) {
  std::vector<double> values;
  for (const LoopFrame& f : frames) values.push_back(f.*field);
  return values;
}

std::vector<double> countColumn(const std::vector<LoopFrame>& frames, uint64_t LoopFrame::*field) {
  std::vector<double> values;
  for (const LoopFrame& f : frames) values.push_back(double(f.*field));
  return values;
}

// The --json summary: per-stage medians, the regions recomputed, and every frame's figures.
void printLoopJson(const DeviceInfo& device, const BenchLoopArgs& args, size_t perFrame, const std::vector<LoopFrame>& frames,
                   uint64_t unobservedOrFar) {
  const std::vector<double> scan = column(frames, &LoopFrame::scanMs), alone = column(frames, &LoopFrame::scanAloneMs),
                            sync = column(frames, &LoopFrame::syncMs), clear = column(frames, &LoopFrame::clearanceMs),
                            query = column(frames, &LoopFrame::queryMs);
  std::vector<double> after(frames.size());  // what the loop adds to the scan: copy back, clearance, queries
  for (size_t f = 0; f < frames.size(); ++f) after[f] = frames[f].syncMs + frames[f].clearanceMs + frames[f].queryMs;
  Json list = Json::array();
  for (const LoopFrame& f : frames)
    list.push_back({{"scan_ms", rounded(f.scanMs, 3)},
                    {"scan_alone_ms", rounded(f.scanAloneMs, 3)},
                    {"sync_ms", rounded(f.syncMs, 3)},
                    {"clearance_ms", rounded(f.clearanceMs, 3)},
                    {"query_ms", rounded(f.queryMs, 3)},
                    {"regions_recomputed", f.recomputed},
                    {"voxels_recomputed", f.voxelsRecomputed},
                    {"regions_stale_by_log_odds", f.logOddsStale},
                    {"regions", f.regions}});
  printJson({{"device", device.name},
             {"driver", device.driverName},
             {"rays_per_frame", perFrame},
             {"frames", args.frames},
             {"speed", args.speed},
             {"resolution", args.resolution},
             {"range", args.range},
             {"unknown", args.unknownFree ? "free" : "obstacle"},
             {"queries", args.queries},
             {"median_ms",
              {{"scan", rounded(median(scan), 3)},
               {"scan_alone", rounded(median(alone), 3)},
               {"sync", rounded(median(sync), 3)},
               {"clearance", rounded(median(clear), 3)},
               {"queries", rounded(median(query), 3)},
               {"sync_clearance_queries", rounded(median(after), 3)}}},
             {"median_regions_recomputed", median(countColumn(frames, &LoopFrame::recomputed))},
             {"median_voxels_recomputed", median(countColumn(frames, &LoopFrame::voxelsRecomputed))},
             {"median_regions_stale_by_log_odds", median(countColumn(frames, &LoopFrame::logOddsStale))},
             {"regions", frames.back().regions},
             {"samples_without_obstacle_in_range", unobservedOrFar},
             {"per_frame", list}});
}

int benchLoop(const CommonOptions& options, const BenchLoopArgs& args) {
  LidarConfig lidar;  // 64 rings x 1024 columns, seed 1: the README run
  lidar.scans = args.frames;
  lidar.speed = args.speed;
  try {
    checkMemoryBudget(uint64_t(lidar.rayCount()) * (sizeof(Ray) + 1), options.memoryBudgetBytes(),
                      "--frames " + std::to_string(args.frames) + " of " + std::to_string(lidar.raysPerScan()) +
                          " rays held in memory",
                      options.memoryBudgetHint() + " or lower --frames");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  OccupancyModel model;
  model.resolution = args.resolution;
  ClearanceOptions clearance;
  clearance.range = args.range;
  clearance.unknownFree = args.unknownFree;
  try {
    clearance.validate(model);
  } catch (const ClearanceSettingsError& e) {
    throw UsageError(std::string("--range: ") + e.what());
  }
  std::vector<uint8_t> noReturn;
  const std::vector<Ray> rays = generateLidarRays(SyntheticScene::generate(1), lidar, &noReturn);
  const size_t perFrame = lidar.raysPerScan();

  Context context(options.contextOptions());
  const MapperOptions mapperOptions{.model = model, .run = {.reserveClearanceCache = true}};
  {  // Compile the pipelines (lavapipe compiles at the first dispatch) outside the timing.
    Mapper warm(context, mapperOptions);
    warm.integrate(std::span<const Ray>(rays).first(std::min<size_t>(4096, rays.size())));
    warm.computeClearance(clearance, {.onlyOutOfDate = true});
    std::vector<glm::dvec3> points = queryPoints(rays.front().origin, args.queries, 0);
    std::vector<ClearanceSample> samples(points.size());
    warm.clearance(points, samples);
  }
  std::vector<LoopFrame> frames(size_t(args.frames));
  {  // The scan alone: integrated and waited for on the GPU, as in the loop.
    Mapper alone(context, mapperOptions);
    for (size_t f = 0; f < frames.size(); ++f) {
      const auto start = Clock::now();
      alone.integrate(std::span<const Ray>(rays).subspan(f * perFrame, perFrame));
      alone.flush();
      frames[f].scanAloneMs = secondsSince(start) * 1e3;
    }
  }
  Mapper mapper(context, mapperOptions);
  std::vector<ClearanceSample> samples(args.queries);
  uint64_t unobservedOrFar = 0;
  // The Mapper's own plan, made again here (same functions, outside the timing) to count the
  // voxels its update recomputes: parts of regions after a complete update, else whole ones.
  std::optional<ClearanceBaseline> baseline;
  for (size_t f = 0; f < frames.size(); ++f) {
    LoopFrame& frame = frames[f];
    const std::span<const Ray> scan = std::span<const Ray>(rays).subspan(f * perFrame, perFrame);
    auto start = Clock::now();
    mapper.integrate(scan);
    mapper.flush();  // integrated on the GPU, as bench frames times a frame
    frame.scanMs = secondsSince(start) * 1e3;
    start = Clock::now();
    const OccupancyMap& map = mapper.map();  // copied back to the host, where the clearance reads
    frame.syncMs = secondsSince(start) * 1e3;
    frame.logOddsStale = staleByLogOdds(map, clearance);
    const std::optional<uint64_t> planned = plannedVoxels(map, clearance, baseline);
    start = Clock::now();
    frame.recomputed = mapper.computeClearance(clearance, {.onlyOutOfDate = true}).regions;
    frame.clearanceMs = secondsSince(start) * 1e3;
    frame.voxelsRecomputed = planned ? *planned : frame.recomputed * map.voxelsPerRegion();
    baseline = clearanceBaseline(mapper.map(), clearance);
    const std::vector<glm::dvec3> points = queryPoints(scan.front().origin, args.queries, f + 1);
    start = Clock::now();
    mapper.clearance(points, samples);
    frame.queryMs = secondsSince(start) * 1e3;
    frame.regions = mapper.map().regions().size();
    for (const ClearanceSample& s : samples) unobservedOrFar += s.clearance < 0.0f;
  }

  const std::vector<double> scan = column(frames, &LoopFrame::scanMs), alone = column(frames, &LoopFrame::scanAloneMs),
                            sync = column(frames, &LoopFrame::syncMs), clear = column(frames, &LoopFrame::clearanceMs),
                            query = column(frames, &LoopFrame::queryMs);
  std::vector<double> after(frames.size());  // what the loop adds to the scan: copy back, clearance, queries
  for (size_t f = 0; f < frames.size(); ++f) after[f] = frames[f].syncMs + frames[f].clearanceMs + frames[f].queryMs;
  const DeviceInfo& device = context.deviceInfo();
  if (options.json) {
    printLoopJson(device, args, perFrame, frames, unobservedOrFar);
    return 0;
  }
  std::printf("voxen bench loop on %s (%s): the README run's lidar (64 x 1024, %s rays a scan, %.3g m/s), %d frames at %.3g m; "
              "each frame: the scan, the map back on the host, clearance at %.3g m (only what changed), %s clearance "
              "queries, unknown space %s; medians over the frames\n\n",
              device.name.c_str(), device.driverName.c_str(), withCommas(perFrame).c_str(), args.speed, args.frames,
              args.resolution, args.range, withCommas(args.queries).c_str(), args.unknownFree ? "free" : "an obstacle");
  const TextTable table({{"stage", 34, Align::Left}, {"ms (median)", 12}, {"ms (p90)", 10}});
  table.printHead();
  auto row = [&](const char* name, const std::vector<double>& values) {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const double p90 = sorted.empty() ? 0.0 : sorted[std::min(sorted.size() - 1, size_t(0.9 * double(sorted.size())))];
    table.printRow({name, fixed(median(values), 2), fixed(p90, 2)});
  };
  row("scan integration (alone)", alone);
  row("scan integration (in the loop)", scan);
  row("map back to the host", sync);
  row("clearance update", clear);
  row("clearance queries", query);
  row("back + clearance + queries", after);
  std::printf("\nregions: %s in the map after the last frame; per frame (median) the clearance recomputed %g (%s of\n"
              "their voxels: the parts within range of changed obstacle voxels), where a log-odds change within range\n"
              "would have made %g stale (the rule before issue 38).\n"
              "scan integration: from handing the scan's rays over until the GPU has integrated them (Mapper::flush); the\n"
              "Mapper keeps its integrator (and the regions it holds) across the clearance. map back: Mapper::map()\n"
              "copying the regions back, where the class changes are found.\n",
              withCommas(frames.back().regions).c_str(), median(countColumn(frames, &LoopFrame::recomputed)),
              withCommas(uint64_t(median(countColumn(frames, &LoopFrame::voxelsRecomputed)))).c_str(),
              median(countColumn(frames, &LoopFrame::logOddsStale)));
  return 0;
}

CommandRun setupBenchLoop(CLI::App& command) {
  auto args = std::make_shared<BenchLoopArgs>();
  command.add_option("--frames", args->frames, "lidar scans of the README run (64 x 1024 rays each; held in memory)")
      ->check(integerIn(1, 4096))
      ->capture_default_str();
  command.add_option("--resolution", args->resolution, "voxel edge in metres")
      ->check(numberIn(kMinResolution, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--range", args->range, "clearance range in metres")->check(numberIn(1e-6, 1e4, "metres"))->capture_default_str();
  command.add_option("--queries", args->queries, "clearance queries per frame")
      ->check(integerIn(1, 100000000))
      ->capture_default_str();
  command.add_option("--speed", args->speed, "the sensor's speed along the scene's path (the README run: 3)")
      ->check(numberIn(0.0, 100.0, "metres per second"))
      ->capture_default_str();
  command.add_flag("--unknown-free", args->unknownFree,
                   "unobserved voxels are free for the clearance (default: obstacles, so newly observed voxels change it)");
  return [args](const CommonOptions& options) { return benchLoop(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "bench loop", "a planner's frame loop: lidar scan -> incremental clearance -> 100,000 clearance queries, ms per stage",
    &setupBenchLoop, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

// `voxen bench live` (issue 41's numbers), in one process on 127.0.0.1: a generated 64 x 1024
// lidar run written as MCAP (--scans at 10 Hz) and played through a Foxglove WebSocket server
// (playRecording) into LiveCloudSource -> Mapper (the GPU integrator), as `voxen play` and
// `voxen map --live` run it (bench_live.hpp, bench_live_runs.cpp).
//
// 0. The pipelines made first (the recording's first scan on a new Mapper, timed: a cold
//    process's first cloud pays it), so that the runs after measure a warm process.
// 1. Live mapping at the recorded 10 Hz: clouds played, received, mapped and dropped; the
//    latency from a cloud's arrival (its last byte) to its rays synced in the map, the run's
//    first cloud apart (a new Mapper's first); the mapping thread's busy rate. Once without and
//    once with `--serve` (LiveMapServer, the command's own, with --clients subscribers).
// 2. Throughput: the clouds the 10 Hz run received, mapped again from memory one after another
//    (the mapping thread never waits for the player's pace), without and with serve, --repeat
//    runs of each, alternating, beside the file reference (RayReader + Mapper::integrateFile,
//    as `voxen map --input` reads the same recording) in the same rounds: medians. The serve
//    cost is the drop of the mapping rate with serve.
// 3. Join: the 10 Hz run's map, tiled side by side until it has --join-regions regions with an
//    occupied voxel (the generated building has fewer than 100 at 0.2 m however far one drives),
//    served by a FoxgloveServer + MapPublisher; clients joining it, timed from FoxgloveClient's
//    construction to their last region message; the bytes sent.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "bench/bench_live.hpp"
#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/testdata/lidar_recording.hpp"

namespace voxen::cli {

namespace {

// A folder of its own under the temp folder, removed with the recording in it.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "voxen-bench-live-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a folder like " + pattern);
    path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

struct Results {
  LidarConfig lidar;
  LidarRecordingSummary recording;
  double warmUpMs = 0;
  LiveRunResult pace, paceServed;
  std::vector<FileRunResult> file;
  std::vector<LiveRunResult> fast, fastServed;
  std::optional<JoinMap> joinMap;
  JoinResult join;
  double seconds = 0;

  double fileRate() const {
    std::vector<double> v;
    for (const FileRunResult& f : file) v.push_back(f.raysPerSecond());
    return median(v);
  }
  static double steadyRate(const std::vector<LiveRunResult>& runs) {
    std::vector<double> v;
    for (const LiveRunResult& r : runs) v.push_back(r.steadyRaysPerSecond());
    return median(v);
  }
  static double busyRate(const std::vector<LiveRunResult>& runs) {
    std::vector<double> v;
    for (const LiveRunResult& r : runs) v.push_back(r.busyRaysPerSecond());
    return median(v);
  }
  // The mapping rate lost to serving, as a fraction of the rate without: per round (the two
  // runs of a round are seconds apart, so a machine shared with others slows both alike), and
  // the median of the rounds'.
  std::vector<double> serveCosts() const {
    std::vector<double> costs;
    for (size_t i = 0; i < std::min(fast.size(), fastServed.size()); ++i) {
      const double without = fast[i].steadyRaysPerSecond();
      costs.push_back(without > 0 ? 1.0 - fastServed[i].steadyRaysPerSecond() / without : 0.0);
    }
    return costs;
  }
  double serveCost() const { return median(serveCosts()); }
  static double cpuSeconds(const std::vector<LiveRunResult>& runs) {
    std::vector<double> v;
    for (const LiveRunResult& r : runs) v.push_back(r.steadyCpuSeconds);
    return median(v);
  }
  uint64_t dropped() const {
    uint64_t n = pace.dropped() + paceServed.dropped() + (pace.played - pace.received) + (paceServed.played - paceServed.received);
    for (const auto* runs : {&fast, &fastServed})
      for (const LiveRunResult& r : *runs) n += r.dropped() + (r.played - r.received);
    return n;
  }
};

void say(bool talk, const char* format, double value) {
  if (!talk) return;
  std::fprintf(stderr, format, value);
  std::fflush(stderr);
}

Results measure(Context& context, const BenchLiveArgs& args, bool talk) {
  Results res;
  const Clock::time_point start = Clock::now();
  res.lidar.scans = args.scans;
  res.lidar.speed = 3.0;  // the README run's lidar: 64 x 1024 at 10 Hz, 3 m/s
  ScratchFolder dir;
  const std::filesystem::path recording = dir.path / "live.mcap";
  res.recording = writeLidarRecording(SyntheticScene::generate(1), res.lidar, recording, {});
  res.warmUpMs = warmUp(context, recording, args.resolution);
  say(talk, "bench live: recording written, pipelines made (%.1f s); live run at 10 Hz\n", secondsSince(start));
  const LiveRunSetup pace{.rate = 1.0, .queue = 8, .resolution = args.resolution, .keep = true};
  res.pace = runLive(context, recording, pace);
  LiveRunSetup served = pace;
  served.serve = true, served.clients = args.clients, served.serveRate = args.serveRate, served.keep = false;
  say(talk, "bench live: the same with serve (%.0f clients)\n", double(args.clients));
  res.paceServed = runLive(context, recording, served);
  for (int i = 0; i < args.repeat; ++i) {
    say(talk, "bench live: throughput, round %.0f: file, clouds without and with serve\n", double(i + 1));
    res.file.push_back(runFile(context, recording, args.resolution));
    for (int k = 0; k < 2; ++k) {  // alternating which goes first
      const bool serve = (i + k) % 2 == 1;
      LiveRunSetup direct = serve ? served : pace;
      direct.keep = false;
      (serve ? res.fastServed : res.fast).push_back(runDirect(context, res.pace.clouds, direct));
    }
  }
  res.pace.clouds.clear();
  say(talk, "bench live: a map of %.0f regions, and joins\n", double(args.joinRegions));
  res.joinMap.emplace(buildJoinMap(res.pace.map->map(), args.joinRegions));
  res.pace.map.reset();
  res.join = runJoins(res.joinMap->map, args.joins);
  res.seconds = secondsSince(start);
  return res;
}

Json liveRunJson(const LiveRunResult& r) {
  return {{"rate", r.setup.rate},
          {"serve", r.setup.serve},
          {"clients", r.setup.clients},
          {"played", r.played},
          {"received", r.received},
          {"mapped", r.mapped},
          {"dropped_behind", r.droppedBehind},
          {"dropped_no_pose", r.droppedNoPose},
          {"malformed", r.malformed},
          {"rays", r.rays},
          {"first_latency_ms", rounded(r.firstLatencyMs, 2)},
          {"latency_ms", {{"median", rounded(median(r.latenciesMs), 2)},
                          {"p95", rounded(quantile(r.latenciesMs, 0.95), 2)},
                          {"max", rounded(quantile(r.latenciesMs, 1.0), 2)}}},
          {"busy_rays_per_s", rounded(r.busyRaysPerSecond(), 0)},
          {"steady_rays_per_s", rounded(r.steadyRaysPerSecond(), 0)},
          {"publications", r.publications},
          {"snapshot_ms", rounded(r.snapshotSeconds * 1e3, 2)},
          {"client_messages", r.clientMessages},
          {"client_bytes", r.clientBytes},
          {"play_max_late_ms", rounded(r.playMaxLateMs, 2)}};
}

Json summaryJson(const Results& res, const BenchLiveArgs& args) {
  std::vector<double> fileRates, bytes;
  for (const FileRunResult& f : res.file) fileRates.push_back(f.raysPerSecond());
  for (const uint64_t b : res.join.bytes) bytes.push_back(double(b));
  auto runsJson = [](const std::vector<LiveRunResult>& runs) { return jsonArray(runs, liveRunJson); };
  return {{"scans", args.scans},
          {"resolution", args.resolution},
          {"rays_per_scan", res.lidar.raysPerScan()},
          {"returns", res.recording.returns},
          {"recording_bytes", res.recording.bytes},
          {"clients", args.clients},
          {"serve_rate", args.serveRate},
          {"warm_up_ms", rounded(res.warmUpMs, 1)},
          {"dropped", res.dropped()},
          {"pace", liveRunJson(res.pace)},
          {"pace_served", liveRunJson(res.paceServed)},
          {"file_rays_per_s", rounded(res.fileRate(), 0)},
          {"live_rays_per_s", rounded(Results::steadyRate(res.fast), 0)},
          {"live_served_rays_per_s", rounded(Results::steadyRate(res.fastServed), 0)},
          {"live_busy_rays_per_s", rounded(Results::busyRate(res.fast), 0)},
          {"live_served_busy_rays_per_s", rounded(Results::busyRate(res.fastServed), 0)},
          {"serve_cost", rounded(res.serveCost(), 4)},
          {"serve_cost_each", roundedList(res.serveCosts(), 4)},
          {"live_cpu_seconds", rounded(Results::cpuSeconds(res.fast), 3)},
          {"live_served_cpu_seconds", rounded(Results::cpuSeconds(res.fastServed), 3)},
          {"file_runs_rays_per_s", roundedList(fileRates, 0)},
          {"direct", runsJson(res.fast)},
          {"direct_served", runsJson(res.fastServed)},
          {"join", {{"regions", res.join.regions},
                    {"live_run_regions", res.joinMap->sourceRegions},
                    {"tiles", res.joinMap->tiles},
                    {"occupied", res.join.occupied},
                    {"complete", res.join.complete},
                    {"regions_ms", rounded(median(res.join.regionsMs), 2)},
                    {"scene_ms", rounded(median(res.join.sceneMs), 2)},
                    {"bytes", rounded(median(bytes), 0)},
                    {"regions_ms_each", roundedList(res.join.regionsMs, 2)},
                    {"scene_ms_each", roundedList(res.join.sceneMs, 2)}}},
          {"seconds", rounded(res.seconds, 2)}};
}

std::vector<std::string> paceCells(const std::string& name, const LiveRunResult& r) {
  return {name, count(r.played), count(r.received), count(r.mapped), count(r.droppedBehind), count(r.droppedNoPose),
          fixed(r.firstLatencyMs, 1), fixed(median(r.latenciesMs), 1), fixed(quantile(r.latenciesMs, 0.95), 1),
          fixed(quantile(r.latenciesMs, 1.0), 1), fixed(r.busyRaysPerSecond() / 1e6, 2)};
}

std::string ratesText(const std::vector<LiveRunResult>& runs) {
  std::string text;
  for (const LiveRunResult& r : runs) text += (text.empty() ? "" : " ") + fixed(r.steadyRaysPerSecond() / 1e6, 2);
  return text;
}

void printPaceAndThroughput(const Results& res, const BenchLiveArgs& args) {
  std::printf("Live mapping at the recorded 10 Hz (queue of 8 clouds), latency from a cloud's arrival to its rays synced in "
              "the map (the pipelines made before: %.0f ms for the first scan on a cold process):\n",
              res.warmUpMs);
  const TextTable pace({{"run", 20, Align::Left}, {"played", 7}, {"received", 9}, {"mapped", 7}, {"behind", 7}, {"no pose", 8},
                        {"first ms", 9}, {"median ms", 10}, {"p95 ms", 8}, {"max ms", 8}, {"busy Mrays/s", 13}});
  pace.printHead();
  pace.printRow(paceCells("no serve", res.pace));
  pace.printRow(paceCells("serve, " + std::to_string(args.clients) + " clients", res.paceServed));
  std::printf("behind / no pose: clouds dropped (the mapper behind; no tf). first: the run's first cloud (a new Mapper's); "
              "median, p95, max: the others. busy: rays / (integrate + sync) of the others.\n\n");
  std::printf("Throughput: the %zu clouds of the 10 Hz run mapped again from memory, one after another, medians of %d runs "
              "each, alternating; Mrays/s from the first cloud synced to the last:\n",
              size_t(res.pace.mapped), args.repeat);
  const TextTable fast({{"run", 24, Align::Left}, {"Mrays/s", 8}, {"busy Mrays/s", 13}, {"of file", 8}, {"CPU s", 7},
                        {"runs (Mrays/s)", 0, Align::Left, "  ", false}});
  fast.printHead();
  std::string fileRuns;
  for (const FileRunResult& f : res.file) fileRuns += (fileRuns.empty() ? "" : " ") + fixed(f.raysPerSecond() / 1e6, 2);
  const double file = res.fileRate();
  fast.printRow({"file (integrateFile)", fixed(file / 1e6, 2), "", "1.00x", "", fileRuns});
  auto row = [&](const std::string& name, const std::vector<LiveRunResult>& runs) {
    const double rate = Results::steadyRate(runs);
    fast.printRow({name, fixed(rate / 1e6, 2), fixed(Results::busyRate(runs) / 1e6, 2), fixed(file > 0 ? rate / file : 0.0, 2, "x"),
                   fixed(Results::cpuSeconds(runs), 2), ratesText(runs)});
  };
  row("clouds, no serve", res.fast);
  row("clouds, serve " + std::to_string(args.clients) + " clients", res.fastServed);
  const LiveRunResult& s = res.fastServed.back();
  std::string costs;
  for (const double c : res.serveCosts()) costs += (costs.empty() ? "" : " ") + fixed(c * 100.0, 1, "%");
  std::printf("serve costs %.1f%% of the mapping rate (goal: at most 5%%): the median of the rounds' (%s). CPU s: the "
              "process's CPU time (every thread) over the run. With serve, last run: %llu publications, "
              "snapshots %.1f ms on the mapping thread, %llu messages and %s bytes read by the clients.\n"
              "file: RayReader (%u threads) + Mapper::integrateFile, reading and decoding the MCAP included; clouds: the "
              "mapping thread's rate (live, decoding is on the source's thread).\n\n",
              res.serveCost() * 100.0, costs.c_str(), (unsigned long long)s.publications, s.snapshotSeconds * 1e3,
              (unsigned long long)s.clientMessages, withCommas(s.clientBytes).c_str(), std::max(1u, std::thread::hardware_concurrency()));
}

void printJoins(const Results& res) {
  const JoinResult& j = res.join;
  std::vector<double> bytes;
  for (const uint64_t b : j.bytes) bytes.push_back(double(b));
  std::printf("Join: a client joining a served map (MapPublisher) of %s regions with %s occupied voxels (the 10 Hz run's "
              "%llu regions, %d times side by side), from FoxgloveClient's construction to its last region message, "
              "%zu joins%s:\n",
              withCommas(j.regions).c_str(), withCommas(j.occupied).c_str(), (unsigned long long)res.joinMap->sourceRegions,
              res.joinMap->tiles, j.regionsMs.size(),
              j.complete ? "" : " (SOME INCOMPLETE within 10 s)");
  const TextTable table({{"topic", 22, Align::Left}, {"median ms", 10}, {"max ms", 8}});
  table.printHead();
  table.printRow({"/voxen/map/regions", fixed(median(j.regionsMs), 1), fixed(quantile(j.regionsMs, 1.0), 1)});
  table.printRow({"/voxen/map/occupied", fixed(median(j.sceneMs), 1), fixed(quantile(j.sceneMs, 1.0), 1)});
  std::printf("bytes sent per join (every channel): %s (median); goal: every region in under 1 s.\n",
              withCommas(uint64_t(median(bytes))).c_str());
}

int benchLive(const CommonOptions& options, const BenchLiveArgs& args) {
  Context context(options.contextOptions());
  const Results res = measure(context, args, !options.json);
  if (options.json) {
    printJson(benchSummary(context.device(), summaryJson(res, args)));
    return 0;
  }
  std::printf("\nvoxen bench live on %s (%s): a generated %d x %d lidar run (%d scans at 10 Hz, 3 m/s, %s returns, MCAP of "
              "%s bytes) played by playRecording on 127.0.0.1 into LiveCloudSource -> Mapper at %g m; %.1f s in all\n\n",
              context.deviceInfo().name.c_str(), context.deviceInfo().driverName.c_str(), res.lidar.rings, res.lidar.columns,
              args.scans, withCommas(res.recording.returns).c_str(), withCommas(res.recording.bytes).c_str(), args.resolution,
              res.seconds);
  printPaceAndThroughput(res, args);
  printJoins(res);
  return 0;
}

CommandRun setupBenchLive(CLI::App& command) {
  auto args = std::make_shared<BenchLiveArgs>();
  command.add_option("--scans", args->scans, "64 x 1024 lidar scans in the stream, 10 a second (50: 5 s)")
      ->check(integerIn(2, 100000))
      ->capture_default_str();
  command.add_option("--resolution", args->resolution, "voxel edge in metres")
      ->check(numberIn(0.01, 100.0, "metres"))
      ->capture_default_str();
  command.add_option("--clients", args->clients, "clients subscribed to every served channel")
      ->check(integerIn(0, 100))
      ->capture_default_str();
  command.add_option("--serve-rate", args->serveRate, "map publications per second when serving (voxen map --serve-rate)")
      ->check(numberIn(0.0, 100.0, "", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--repeat", args->repeat, "throughput runs of each kind (the medians are reported)")
      ->check(integerIn(1, 100))
      ->capture_default_str();
  command.add_option("--joins", args->joins, "clients joining the served map, one after another")
      ->check(integerIn(1, 1000))
      ->capture_default_str();
  command.add_option("--join-regions", args->joinRegions,
                     "regions of the joined map at least (the 10 Hz run's map tiled side by side until it has them)")
      ->check(integerIn(1, 100000))
      ->capture_default_str();
  return [args](const CommonOptions& options) { return benchLive(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "bench live",
    "live mapping through a local Foxglove server: drops, latency, the cost of serving to clients, a client's join",
    &setupBenchLive, Uses::Gpu | Uses::Json};

}  // namespace voxen::cli

// `voxen map --live ws://HOST:PORT --output MAP.vxm [--serve :PORT]`: a robot's stream mapped
// as it comes (voxen/live/live_cloud_source.hpp), each cloud's rays in the map before the next
// is taken, until --duration, Ctrl-C or an error the stream cannot go on from; the map is then
// saved (atomically: a failed run leaves an older file as it was). A lost connection pauses
// the run and is retried. With --serve the map, pose, path, 2D map and status go out on a
// Foxglove WebSocket server as they change (live_map_server.hpp).
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "commands/live/live_map_server.hpp"
#include "commands/live/live_store.hpp"
#include "commands/map/map_args.hpp"
#include "output_checks.hpp"
#include "report/text_format.hpp"
#include "stop_request.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/live/live_cloud_source.hpp"
#include "voxen/mapper.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

using Clock = std::chrono::steady_clock;

// What a live run takes from the command line, and what it refuses.
void checkLiveOptions(const MapArgs& args) {
  if (!args.cloud.empty() || !args.input.empty())
    throw UsageError("--live maps a robot's stream; --input maps a file: give one of them");
  if (!args.trajectory.empty()) throw UsageError("--trajectory has no effect with --live: the stream's tf poses the clouds");
  if (!args.recording.sensorFrame.empty())
    throw UsageError("--sensor-frame has no effect with --live: the clouds' header.frame_id names their frame");
  if (args.recording.start != 0.0) throw UsageError("--start has no effect with --live: a stream is mapped from when it is joined");
  if (args.depth.tsdf || !args.depth.depthTopic.empty() || !args.depth.cameraInfoTopic.empty() || args.depth.colour ||
      !args.depth.colourTopic.empty())
    throw UsageError(std::string(args.depth.tsdf ? "--tsdf" : "--depth-topic, --camera-info-topic and --color") +
                     " with --live: a stream's depth images into a TSDF are not supported yet; --live maps its point clouds");
  if (!args.store.empty() && args.decaySeconds)
    throw UsageError("--decay-s with --live --store: regions paged out to the store would miss the forgetting; map into "
                     "--output, or without decay");
  if (args.withClearance || !args.heightmapOutput.empty())
    throw UsageError(std::string(args.withClearance ? "--clearance" : "--heightmap") +
                     " with --live: compute it from the saved map (voxen clearance, voxen heightmap)");
  checkStoreOptions(args);  // --output or --store, and what goes with each
}

// The process's resident memory in MB (Linux /proc; 0 where it cannot be read).
double residentMb() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0.0;
  unsigned long pages = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return n == 2 ? double(resident) * 4096.0 / (1 << 20) : 0.0;
}

struct LiveTotals {
  uint64_t clouds = 0, rays = 0;
  double latencySumMs = 0.0, latencyMaxMs = 0.0, latencyLastMs = 0.0;
  double integrateSeconds = 0.0;
  double meanLatencyMs() const { return clouds ? latencySumMs / double(clouds) : 0.0; }
};

MapperOptions mapperOptionsOf(const MapArgs& args, const OccupancyModel& model) {
  MapperOptions o{.model = model, .extraLayers = args.layers};
  o.run.backend = args.cpu || args.cpuSequential ? MapperBackend::CpuReference : MapperBackend::Gpu;
  o.run.integration = args.integration;
  o.run.gpu = args.gpu;
  o.run.window = args.window;
  o.run.decaySeconds = args.decaySeconds;
  return o;
}

// One live run: the stream, the map, the optional server, and the counts, step by step.
class LiveRun {
 public:
  LiveRun(const CommonOptions& options, const MapArgs& args)
      : args_(args),
        model_(args.model()),
        talk_(!args.quiet && !options.json),
        source_({.url = args.live.url,
                 .cloudTopic = args.recording.cloudTopic,
                 .fixedFrame = args.recording.fixedFrame,
                 .deskew = args.recording.deskew,
                 .exclusion = exclusionOf(args),
                 .queueClouds = size_t(args.live.queueClouds),
                 .topicTimeoutSeconds = args.live.topicTimeout}),
        context_(options.contextOptions()),
        mapper_(context_, mapperOptionsOf(args, model_)) {
    if (!args.store.empty()) store_.emplace(args, model_, mapper_);
    if (!args.live.serve.empty()) server_.emplace(args.live.serve, args.live.serveRate, args.live.url);
    if (!talk_) return;
    if (store_ && store_->resumed())
      std::fprintf(stderr, "voxen map: continuing the run in %s from its last checkpoint (%s rays)\n",
                   redactedStoreName(args.store).c_str(), withCommas(store_->resumeRays()).c_str());
    std::fprintf(stderr, "voxen map: live from %s -> %s on %s (resolution %s m); Ctrl-C%s ends the run and saves the map\n",
                 args.live.url.c_str(), target().c_str(), context_.device().info().name.c_str(),
                 formatNumber(model_.resolution).c_str(), args.recording.duration ? " or --duration" : "");
    if (server_) std::fprintf(stderr, "%s\n", server_->banner().c_str());
  }

  // Until --duration, a signal or an error the stream cannot go on from (kept in fatal_).
  void run() {
    Clock::time_point lastLine = start_;
    while (!stopRequest_.signal()) {
      if (args_.recording.duration && seconds() >= *args_.recording.duration) {
        completed_ = true;
        break;
      }
      std::optional<live::LiveCloud> cloud;
      try {
        cloud = source_.next(std::chrono::milliseconds(50));
      } catch (const Error& e) {
        fatal_ = e.what();
        break;
      }
      // What happens to the connection is said even with --json (on stderr): only --quiet hides it.
      for (const std::string& event : source_.takeEvents())
        if (!args_.quiet) std::fprintf(stderr, "voxen map: %s\n", event.c_str());
      if (cloud) integrate(*cloud);
      if (server_ && server_->due()) server_->publish(mapper_.snapshot(), status(source_.connected() ? "mapping" : "reconnecting"));
      if (talk_ && std::chrono::duration<double>(Clock::now() - lastLine).count() >= 5.0) {
        lastLine = Clock::now();
        const live::LiveInputStats in = source_.stats();
        std::fprintf(stderr, "voxen map: %llu clouds mapped, %llu dropped, %s rays, latency %.0f ms (max %.0f)\n",
                     (unsigned long long)totals_.clouds, (unsigned long long)in.dropped(),
                     withCommas(totals_.rays).c_str(), totals_.latencyLastMs, totals_.latencyMaxMs);
      }
    }
  }

  // The map up to now is saved whatever ended the run: a stopped or broken stream keeps its work.
  // A store keeps a checkpoint; only --duration's end completes its run (a signal or a lost
  // stream leaves it to be resumed, as a robot that reboots does).
  int finish(const CommonOptions& options) {
    const bool mappedSomething = totals_.rays > 0 || args_.allowEmpty;
    if (store_) {
      if (completed_) store_->complete(mapper_, totals_.rays);
      else checkpoint_ = store_->keep(mapper_, totals_.rays);
    } else if (mappedSomething) {
      mapper_.save(args_.output);
    }
    const bool saved = store_ || mappedSomething;
    const MapperStats mapped = mapper_.stats();
    if (server_) {
      server_->publish(mapper_.snapshot(), status("done"));
      server_->finish(args_.live.serveLinger);
    }
    report(options, mapped, saved);
    if (!fatal_.empty())
      throw Error(fatal_ + (saved ? " (the map up to then is saved in " + target() + ")" : " (no ray was mapped: nothing written)"));
    if (!saved)
      throw Error("no ray was mapped from " + args_.live.url + ", so nothing was written to " + args_.output +
                  " (give --allow-empty to write the empty map anyway)");
    return 0;  // Ctrl-C (or SIGTERM) is how a stream's run ends: its map is saved
  }

 private:
  std::string target() const {
    return store_ ? redactedStoreName(args_.store) + (args_.session.empty() ? "" : " (session " + args_.session + ")") : args_.output;
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // The cloud's rays are in the map (synced) before the next cloud is taken: its latency runs
  // from its last byte's arrival to then.
  void integrate(const live::LiveCloud& cloud) {
    const Clock::time_point t0 = Clock::now();
    mapper_.integrate(cloud.rays);
    mapper_.sync();
    const Clock::time_point t1 = Clock::now();
    totals_.integrateSeconds += std::chrono::duration<double>(t1 - t0).count();
    totals_.latencyLastMs = std::chrono::duration<double, std::milli>(t1 - cloud.arrived).count();
    totals_.latencyMaxMs = std::max(totals_.latencyMaxMs, totals_.latencyLastMs);
    totals_.latencySumMs += totals_.latencyLastMs;
    ++totals_.clouds;
    totals_.rays += cloud.rays.size();
    if (store_) store_->afterCloud(mapper_, totals_.rays);
    if (server_ && cloud.sensorPose) server_->pose(*cloud.sensorPose);
  }

  live::LiveStatus status(const char* state) const {
    const live::LiveInputStats in = source_.stats();
    const double wall = seconds();
    return {.state = state,
            .source = args_.live.url,
            .clouds = totals_.clouds,
            .droppedClouds = in.dropped(),
            .rays = totals_.rays,
            .raysPerSecond = wall > 0 ? double(totals_.rays) / wall : 0.0,
            .latencyLastMs = totals_.latencyLastMs,
            .latencyMaxMs = totals_.latencyMaxMs,
            .resolution = model_.resolution,
            .memoryMb = residentMb()};
  }

  void report(const CommonOptions& options, const MapperStats& mapped, bool saved) const {
    const live::LiveInputStats in = source_.stats();
    const int signal = stopRequest_.signal();
    if (options.json) {
      nlohmann::json j{{"clouds_received", in.cloudsReceived}, {"clouds_mapped", totals_.clouds},
                       {"dropped_behind", in.droppedBehind}, {"dropped_no_pose", in.droppedNoPose},
                       {"dropped_backwards", in.droppedBackwards},
                       {"malformed", in.malformed}, {"reconnects", in.reconnects}, {"rays", totals_.rays},
                       {"latency_ms", {{"mean", totals_.meanLatencyMs()}, {"max", totals_.latencyMaxMs}}},
                       {"integrate_seconds", totals_.integrateSeconds}, {"wall_seconds", seconds()},
                       {"occupied", mapped.counts.occupied}, {"free", mapped.counts.free},
                       {"written", saved ? nlohmann::json(target()) : nlohmann::json(nullptr)},
                       {"checkpoint", checkpoint_}, {"complete", !store_ || completed_},
                       {"stopped_by", signal ? StopRequest::signalName(signal) : ""},
                       {"error", fatal_.empty() ? nlohmann::json(nullptr) : nlohmann::json(fatal_)}};
      std::printf("%s\n", j.dump().c_str());
    } else if (talk_) {
      std::fprintf(stderr,
                   "voxen map: %llu clouds received, %llu mapped, %llu dropped behind, %llu without a pose, %llu going back in time, "
                   "%llu malformed%s; "
                   "%s rays; latency mean %.1f ms, max %.1f ms; occupied voxels %s, free voxels %s -> %s\n",
                   (unsigned long long)in.cloudsReceived, (unsigned long long)totals_.clouds,
                   (unsigned long long)in.droppedBehind, (unsigned long long)in.droppedNoPose,
                   (unsigned long long)in.droppedBackwards, (unsigned long long)in.malformed,
                   in.firstMalformed.empty() ? "" : (" (first: " + in.firstMalformed + ")").c_str(),
                   withCommas(totals_.rays).c_str(), totals_.meanLatencyMs(), totals_.latencyMaxMs,
                   withCommas(mapped.counts.occupied).c_str(), withCommas(mapped.counts.free).c_str(),
                   saved ? target().c_str() : "nothing written (no rays)");
      if (store_ && !completed_)
        std::fprintf(stderr, "voxen map: checkpoint %llu kept in %s; resume with: %s\n", (unsigned long long)checkpoint_,
                     target().c_str(), resumeCommand(args_).c_str());
    }
  }

  const MapArgs& args_;
  OccupancyModel model_;
  bool talk_;
  live::LiveCloudSource source_;
  Context context_;
  Mapper mapper_;
  std::optional<LiveStore> store_;
  std::optional<LiveMapServer> server_;
  StopRequest stopRequest_{"\nvoxen map: stopping and saving the map (again to stop at once, without saving)\n"};
  bool completed_ = false;    // --duration ended the run
  uint64_t checkpoint_ = 0;   // the checkpoint a stopped store run kept
  Clock::time_point start_ = Clock::now();
  LiveTotals totals_;
  std::string fatal_;
};

}  // namespace

int mapLive(const CommonOptions& options, MapArgs& args) {
  checkLiveOptions(args);
  if (!args.output.empty()) checkOutputs({{"--output", args.output}}, {});
  LiveRun run(options, args);
  run.run();
  return run.finish(options);
}

}  // namespace voxen::cli

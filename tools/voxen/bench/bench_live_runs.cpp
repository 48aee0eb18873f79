// `voxen bench live`'s measurements (bench_live.hpp): a live run (player -> LiveCloudSource ->
// Mapper, optionally served to clients), the file reference, and clients joining a served map.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "bench/bench_live.hpp"
#include "commands/live/live_map_server.hpp"
#include "stopwatch.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/live/foxglove_client.hpp"
#include "voxen/live/foxglove_server.hpp"
#include "voxen/live/live_cloud_source.hpp"
#include "voxen/live/map_publisher.hpp"
#include "voxen/live/recording_player.hpp"
#include "voxen/mapper.hpp"

namespace voxen::cli {

namespace {

constexpr const char* kRegionsTopic = "/voxen/map/regions";
constexpr const char* kSceneTopic = "/voxen/map/occupied";
constexpr size_t kServedChannels = 6;  // MapPublisher's channels (docs/live.md)

uint64_t nowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

double msBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

live::FoxgloveClientOptions everyChannel(const std::string& url) {
  return {.url = url, .wants = [](const live::AdvertisedChannel&) { return true; }, .reconnect = false};
}

// The recording played on a server of its own, on a thread that waits for the live source to
// subscribe; stopped and joined on destruction (an error on the mapping side leaves no thread).
class Player {
 public:
  Player(const std::filesystem::path& recording, double rate) : server_({.port = 0, .servePage = false}) {
    thread_ = std::thread([this, recording, rate] {
      try {
        stats_ = live::playRecording(recording, server_,
                                     {.rate = rate, .waitForSubscriberSeconds = 30.0, .stop = [this] { return stop_.load(); }});
        server_.drain(10.0);  // every cloud on its way before the run counts what arrived
      } catch (const std::exception& e) {
        error_ = e.what();
      }
      done_ = true;
    });
  }
  ~Player() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  Player(const Player&) = delete;
  Player& operator=(const Player&) = delete;

  std::string url() const { return server_.url(); }
  bool done() const { return done_; }

  // Waits until the player has advertised the recording's `count` channels, before the live
  // source connects: a client that connects while a channel is being advertised is told of it
  // twice (in the channel list on connecting and in the advertisement), and LiveCloudSource
  // takes that for two cloud topics (see the report of issue 41's bench).
  void waitAdvertised(size_t count) const {
    live::FoxgloveClient probe({.url = url(), .reconnect = false},
                               [](const live::AdvertisedChannel&, uint64_t, std::span<const uint8_t>) {},
                               [](const live::ClientEvent&) {});
    const Clock::time_point start = Clock::now();
    while (probe.channels().size() < count) {
      if (done_ || secondsSince(start) > 30.0) return;  // the play failed: its error says why
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the last advertisement sent to every client
  }
  // After done(): what was played (Error for a failed or unheard play).
  const live::PlayStats& stats() const {
    if (!error_.empty()) throw Error("playing the recording failed: " + error_);
    if (stats_.waitedInVain) throw Error("the live source did not subscribe within 30 s");
    return stats_;
  }

 private:
  live::FoxgloveServer server_;
  std::atomic<bool> stop_{false}, done_{false};
  live::PlayStats stats_;
  std::string error_;
  std::thread thread_;
};

// `voxen map --serve`'s server (LiveMapServer, the very class) with clients subscribed to
// every channel before the stream starts.
struct Served {
  LiveMapServer server;
  std::vector<std::unique_ptr<live::FoxgloveClient>> clients;

  Served(int count, double rate, const std::string& source) : server(":0", rate, source) {
    const std::string url = urlOf(server.banner());
    for (int i = 0; i < count; ++i)
      clients.push_back(std::make_unique<live::FoxgloveClient>(
          everyChannel(url), [](const live::AdvertisedChannel&, uint64_t, std::span<const uint8_t>) {},
          [](const live::ClientEvent&) {}));
    const Clock::time_point start = Clock::now();
    auto ready = [&] {
      return std::all_of(clients.begin(), clients.end(),
                         [](const auto& c) { return c->connected() && c->channels().size() >= kServedChannels; });
    };
    while (!ready()) {
      if (secondsSince(start) > 10.0) throw Error("the bench's clients did not connect to " + url + " within 10 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // their subscriptions reach the server
  }

  // LiveMapServer names its address only in its banner ("... on ws://127.0.0.1:PORT (page: ...").
  static std::string urlOf(const std::string& banner) {
    const size_t at = banner.find("ws://");
    if (at == std::string::npos) throw Error("no ws:// URL in the server's banner: " + banner);
    return banner.substr(at, banner.find(' ', at) - at);
  }

  // The clients' counts once they stop growing (everything sent has been read), at most 3 s.
  std::pair<uint64_t, uint64_t> received() const {
    std::pair<uint64_t, uint64_t> last{~0ull, 0}, now{0, 0};
    for (int i = 0; i < 30 && now != last; ++i) {
      last = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      now = {0, 0};
      for (const auto& c : clients) {
        const live::FoxgloveClientCounters k = c->counters();
        now.first += k.messages, now.second += k.bytes;
      }
    }
    return now;
  }
};

// CPU time of every thread of the process (the mapper's, lavapipe's, the server's, the clients'), seconds.
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

OccupancyModel modelOf(double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  return model;
}

// The mapping thread's side of a run, as voxen map --live [--serve] does it: each cloud's rays
// in the map (synced) before the next is taken; with serve, a snapshot handed to the
// LiveMapServer at its rate and the sensor's pose at each cloud.
class MappingSide {
 public:
  MappingSide(Context& context, const LiveRunSetup& setup, std::string source)
      : mapper_(context, {.model = modelOf(setup.resolution)}), source_(std::move(source)) {
    r.setup = setup;
    if (setup.serve) served_.emplace(setup.clients, setup.serveRate, source_);
  }

  // `arrived`: when the cloud's last byte arrived (its latency runs from then).
  void map(const live::LiveCloud& cloud, Clock::time_point arrived) {
    const Clock::time_point t0 = Clock::now();
    mapper_.integrate(cloud.rays);
    mapper_.sync();
    const Clock::time_point t1 = Clock::now();
    const double latency = msBetween(arrived, t1);
    if (r.mapped == 0) {
      r.firstLatencyMs = latency;
      firstSynced_ = t1;
      firstCpu_ = processCpuSeconds();
    } else {
      r.latenciesMs.push_back(latency);
      r.busySeconds += std::chrono::duration<double>(t1 - t0).count();
      r.steadyRays += cloud.rays.size();
    }
    lastSynced_ = t1;
    r.rays += cloud.rays.size();
    ++r.mapped;
    if (served_ && cloud.sensorPose) served_->server.pose(*cloud.sensorPose);
  }

  // Between clouds, as the command's loop does: a publication when one is due.
  void tick() {
    if (!served_ || !served_->server.due()) return;
    const Clock::time_point t0 = Clock::now();
    MapSnapshot snapshot = mapper_.snapshot();
    r.snapshotSeconds += secondsSince(t0);
    served_->server.publish(std::move(snapshot), status("mapping"));
    ++r.publications;
  }

  // The rates' window closed; the last state published and read by the clients.
  LiveRunResult finish() {
    if (r.mapped > 1) {
      r.steadySeconds = std::chrono::duration<double>(lastSynced_ - firstSynced_).count();
      r.steadyCpuSeconds = processCpuSeconds() - firstCpu_;
    }
    if (served_) {
      served_->server.publish(mapper_.snapshot(), status("done"));
      served_->server.finish();
      std::tie(r.clientMessages, r.clientBytes) = served_->received();
    }
    return std::move(r);
  }

  LiveRunResult r;
  MapSnapshot snapshot() { return mapper_.snapshot(); }

 private:
  live::LiveStatus status(const char* state) const {
    return {.state = state, .source = source_, .clouds = r.mapped, .rays = r.rays, .resolution = r.setup.resolution};
  }

  Mapper mapper_;
  std::string source_;
  std::optional<Served> served_;
  Clock::time_point firstSynced_{}, lastSynced_{};
  double firstCpu_ = 0;
};

}  // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t rank = size_t(std::ceil(q * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

LiveRunResult runLive(Context& context, const std::filesystem::path& recording, const LiveRunSetup& setup) {
  Player player(recording, setup.rate);
  MappingSide side(context, setup, player.url());  // its clients connected before the stream starts
  player.waitAdvertised(3);  // the generated recording's /points, /tf and /tf_static
  live::LiveCloudSource source({.url = player.url(), .queueClouds = setup.queue});
  std::vector<live::LiveCloud> kept;
  Clock::time_point lastCloud = Clock::now();
  while (true) {
    std::optional<live::LiveCloud> cloud = source.next(std::chrono::milliseconds(20));
    source.takeEvents();  // connection events: nothing to show
    if (cloud) {
      side.map(*cloud, cloud->arrived);
      lastCloud = Clock::now();
      if (setup.keep) kept.push_back(std::move(*cloud));
    } else if (player.done()) {
      // Done once every cloud received is mapped or dropped, and every cloud played received
      // (or none came for 2 s: the player's server skipped some, counted below).
      const live::LiveInputStats in = source.stats();
      const bool accounted = side.r.mapped + in.droppedBehind + in.droppedNoPose >= in.cloudsReceived;
      if (accounted && (in.cloudsReceived >= player.stats().clouds || secondsSince(lastCloud) > 2.0)) break;
      if (secondsSince(lastCloud) > 20.0) break;
    } else if (secondsSince(lastCloud) > 60.0) {
      throw Error("no cloud from the player for 60 s");
    }
    side.tick();
  }
  LiveRunResult r = side.finish();
  const live::LiveInputStats in = source.stats();
  r.received = in.cloudsReceived;
  r.droppedBehind = in.droppedBehind;
  r.droppedNoPose = in.droppedNoPose;
  r.malformed = in.malformed;
  const live::PlayStats& played = player.stats();
  r.played = played.clouds;
  r.playMaxLateMs = played.maxLateMs;
  r.playSeconds = played.seconds;
  r.clouds = std::move(kept);
  if (setup.keep) r.map = side.snapshot();
  return r;
}

LiveRunResult runDirect(Context& context, const std::vector<live::LiveCloud>& clouds, const LiveRunSetup& setup) {
  MappingSide side(context, setup, "bench");
  for (const live::LiveCloud& cloud : clouds) {
    side.map(cloud, Clock::now());  // taken from memory: its latency is its integrate + sync
    side.tick();
  }
  LiveRunResult r = side.finish();
  r.played = r.received = clouds.size();
  return r;
}

FileRunResult runFile(Context& context, const std::filesystem::path& recording, double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  Mapper mapper(context, {.model = model});
  // As voxen map --input reads a recording: reader threads on every core, half as many preparing.
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const Clock::time_point start = Clock::now();
  RayReader reader(recording, std::nullopt, {.threads = threads});
  mapper.integrateFile(reader, {.prepareThreads = threads > 1 ? std::max(1u, threads / 2) : 0u});
  mapper.sync();
  return {.rays = reader.stats().rays, .seconds = secondsSince(start)};
}

double warmUp(Context& context, const std::filesystem::path& recording, double resolution) {
  RayReader reader(recording);
  std::vector<Ray> rays;
  reader.read(rays, size_t(64) * 1024);  // about the first scan's returns (64 x 1024 rays a scan)
  const Clock::time_point start = Clock::now();
  Mapper mapper(context, {.model = modelOf(resolution)});
  mapper.integrate(rays);
  mapper.sync();
  return secondsSince(start) * 1e3;
}

JoinMap buildJoinMap(const OccupancyMap& from, int regions) {
  JoinMap result{.map = OccupancyMap(from.model())};
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (const auto& [key, region] : from.regions()) {
    const auto values = region.occupancy();
    result.sourceRegions += std::any_of(values.begin(), values.end(), [&](float v) { return from.classify(v) == VoxelClass::Occupied; });
    lo = std::min(lo, key.x), hi = std::max(hi, key.x);
  }
  if (result.sourceRegions == 0) throw Error("the live run's map has no occupied voxel to serve");
  result.tiles = int((uint64_t(regions) + result.sourceRegions - 1) / result.sourceRegions);
  for (int t = 0; t < result.tiles; ++t)
    for (const auto& [key, region] : from.regions()) {  // side by side along x, a region apart
      Region& copy = result.map.region({key.x + t * (hi - lo + 2), key.y, key.z});
      const auto values = region.occupancy();
      std::copy(values.begin(), values.end(), copy.occupancy().begin());
      result.map.markOccupancyChanged(copy);
    }
  result.regions = result.sourceRegions * uint64_t(result.tiles);
  return result;
}

JoinResult runJoins(const OccupancyMap& map, int joins) {
  JoinResult result;
  live::FoxgloveServer server({.port = 0, .servePage = false});
  live::MapPublisher publisher(server, {});
  const uint64_t now = nowNs();
  const live::MapPublishStats published = publisher.publishMap(map, now);
  try {
    publisher.publishGrid(computeHeightmap(map, {}), now);  // a served map's whole state, 2D map included
  } catch (const Error&) {
    // a map with no surface: no 2D map, as LiveMapServer skips it
  }
  publisher.publishStatus({.state = "serving", .regions = published.regions, .occupiedVoxels = published.occupied}, now);
  result.regions = published.regions;
  result.occupied = published.occupied;
  for (int j = 0; j < joins; ++j) {
    std::mutex mutex;
    std::condition_variable changed;
    uint64_t regions = 0, scene = 0;
    Clock::time_point lastRegion{}, lastScene{};
    const uint64_t before = server.counters().bytesSent;
    const Clock::time_point start = Clock::now();
    bool complete = false;
    {
      live::FoxgloveClient client(
          everyChannel(server.url()),
          [&](const live::AdvertisedChannel& c, uint64_t, std::span<const uint8_t>) {
            {
              std::lock_guard lock(mutex);
              if (c.topic == kRegionsTopic) ++regions, lastRegion = Clock::now();
              if (c.topic == kSceneTopic) ++scene, lastScene = Clock::now();
            }
            changed.notify_all();
          },
          [](const live::ClientEvent&) {});
      std::unique_lock lock(mutex);
      complete = changed.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return regions >= published.regions && scene >= published.regions; });
    }
    result.complete = result.complete && complete;
    result.regionsMs.push_back(msBetween(start, lastRegion));
    result.sceneMs.push_back(msBetween(start, lastScene));
    result.bytes.push_back(server.counters().bytesSent - before);
  }
  return result;
}

}  // namespace voxen::cli

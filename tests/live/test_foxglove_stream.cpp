// The Foxglove WebSocket server and client (issue 41): keyed state for joining clients,
// deletions, logged channels, many clients, connect/disconnect churn, a peer that is not a
// Foxglove server; the map publisher's regions decoded against the map's own occupied voxels;
// a recording played through the server and read by LiveCloudSource gives the very rays
// RayReader reads from the file. All in one process on 127.0.0.1, on free ports.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/live/foxglove_client.hpp"
#include "voxen/live/foxglove_server.hpp"
#include "voxen/live/live_cloud_source.hpp"
#include "voxen/live/map_publisher.hpp"
#include "voxen/live/recording_player.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/testdata/lidar_recording.hpp"

namespace {

using namespace voxen;
using namespace voxen::live;
using Clock = std::chrono::steady_clock;

// What a client received, by topic: the newest payload of each key (a region's message, or
// the one message of a "latest" channel), and every payload in order.
struct Received {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::vector<std::string>> byTopic;
  std::vector<ClientEvent> events;
  void add(const AdvertisedChannel& c, std::span<const uint8_t> bytes) {
    {
      std::lock_guard lock(mutex);
      byTopic[c.topic].emplace_back(bytes.begin(), bytes.end());
    }
    changed.notify_all();
  }
  size_t count(const std::string& topic) {
    std::lock_guard lock(mutex);
    return byTopic[topic].size();
  }
  std::vector<std::string> of(const std::string& topic) {
    std::lock_guard lock(mutex);
    return byTopic[topic];
  }
  // Waits until `topic` has at least `n` messages (or 10 s pass); whether it got them.
  bool waitFor(const std::string& topic, size_t n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return byTopic[topic].size() >= n; });
  }
};

std::unique_ptr<FoxgloveClient> connect(uint16_t port, Received& into, std::function<bool(const AdvertisedChannel&)> wants = {}) {
  FoxgloveClientOptions options{.url = "ws://127.0.0.1:" + std::to_string(port)};
  options.wants = wants ? std::move(wants) : [](const AdvertisedChannel&) { return true; };
  return std::make_unique<FoxgloveClient>(
      options, [&into](const AdvertisedChannel& c, uint64_t, std::span<const uint8_t> bytes) { into.add(c, bytes); },
      [&into](const ClientEvent& e) {
        std::lock_guard lock(into.mutex);
        into.events.push_back(e);
      });
}

}  // namespace

TEST_CASE("Foxglove server: keyed state, joiners, deletions and logged channels", "[live]") {
  FoxgloveServer server({.port = 0});
  const ChannelId state = server.advertise({.topic = "/state", .schemaName = "test.State"});
  const ChannelId log = server.advertise({.topic = "/log", .schemaName = "test.Log", .everyMessage = true});
  CHECK_THROWS_WITH(server.advertise({.topic = "/state", .schemaName = "x"}), Catch::Contains("advertised already"));
  server.publish(state, "a", 1, "a1");
  server.publish(state, "b", 2, "b1");
  server.publish(state, "a", 3, "a2");  // replaces a1 before anyone joined
  server.publish(log, "", 4, "before anyone joined");  // a log is not replayed

  Received first;
  auto client = connect(server.port(), first);
  REQUIRE(first.waitFor("/state", 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::vector<std::string> got = first.of("/state");
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"a2", "b1"});
  CHECK(first.count("/log") == 0);

  server.publish(log, "", 5, "m1");
  server.publish(log, "", 6, "m2");
  server.remove(state, "b", 7, "b gone");
  server.remove(state, "never", 8, "nothing");  // never published: nothing sent
  REQUIRE(first.waitFor("/log", 2));
  REQUIRE(first.waitFor("/state", 3));
  CHECK(first.of("/log") == std::vector<std::string>{"m1", "m2"});
  CHECK(first.of("/state").back() == "b gone");

  // A later client gets the state as it is now: a2 only (b was removed), no deletion, no log.
  Received second;
  auto late = connect(server.port(), second);
  REQUIRE(second.waitFor("/state", 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK(second.of("/state") == std::vector<std::string>{"a2"});
  CHECK(second.count("/log") == 0);
  CHECK(server.counters().clients == 2);
  CHECK(server.subscribers(state) == 2);
  late.reset();
  client.reset();
  for (int i = 0; i < 200 && server.counters().clients > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(server.counters().clients == 0);
  CHECK(server.subscribers(state) == 0);
}

TEST_CASE("Foxglove server: twenty clients at once, and clients that come and go", "[live]") {
  FoxgloveServer server({.port = 0});
  const ChannelId state = server.advertise({.topic = "/state", .schemaName = "test.State"});
  for (int k = 0; k < 50; ++k) server.publish(state, std::to_string(k), uint64_t(k), std::string(1000, char('a' + k % 26)));
  // Churn: 30 clients connect and drop at once, some before the state reached them.
  for (int i = 0; i < 30; ++i) {
    Received r;
    auto c = connect(server.port(), r);
    if (i % 2) r.waitFor("/state", 50);
  }
  std::vector<std::unique_ptr<Received>> received;
  std::vector<std::unique_ptr<FoxgloveClient>> clients;
  for (int i = 0; i < 20; ++i) {
    received.push_back(std::make_unique<Received>());
    clients.push_back(connect(server.port(), *received.back()));
  }
  for (auto& r : received) REQUIRE(r->waitFor("/state", 50));
  server.publish(state, "7", 99, "changed");
  for (auto& r : received) {
    REQUIRE(r->waitFor("/state", 51));
    CHECK(r->of("/state").back() == "changed");
  }
  CHECK(server.counters().clients == 20);
  CHECK(server.counters().connections == 50);
  CHECK(server.counters().badRequests == 0);
}

// A peer that is not a Foxglove server (an HTTP server, a WebSocket server of another
// protocol) is tested against stand-in servers in tests/cli/live/live_faults.sh.
TEST_CASE("Foxglove client and server: a server that is not there, a URL or address that cannot be used", "[live]") {
  FoxgloveClientOptions options{.url = "ws://127.0.0.1:1", .reconnect = false};
  std::atomic<bool> failed{false};
  FoxgloveClient client(options, [](const AdvertisedChannel&, uint64_t, std::span<const uint8_t>) {},
                        [&](const ClientEvent& e) {
                          if (e.kind == ClientEvent::Kind::Failed) failed = true;
                        });
  for (int i = 0; i < 400 && !failed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(failed);
  CHECK_FALSE(client.connected());
  CHECK_THROWS_WITH(FoxgloveClient({.url = "http://127.0.0.1:1"}, {}, {}), Catch::Contains("not a WebSocket URL"));
  FoxgloveServer taken({.port = 0});
  const std::string port = std::to_string(taken.port());
  CHECK_THROWS_WITH(FoxgloveServer({.bind = "127.0.0.1", .port = taken.port()}),
                    Catch::Contains("cannot listen on 127.0.0.1:" + port) && Catch::Contains("in use"));
}

TEST_CASE("Map publisher: the regions sent are the map's occupied voxels, then only what changed", "[live]") {
  OccupancyModel model;
  model.resolution = 0.2;
  OccupancyMap map(model);
  CpuIntegrator integrator(map);
  std::vector<Ray> rays;
  for (int i = 0; i < 400; ++i) {
    const double a = i * 0.0157;
    rays.push_back({.origin = {0.0, 0.0, 1.0}, .sample = {12.0 * std::cos(a), 12.0 * std::sin(a), 0.5 + 0.01 * i}});
  }
  integrator.integrate(rays);
  FoxgloveServer server({.port = 0});
  MapPublisher publisher(server, {});
  const MapPublishStats first = publisher.publishMap(map, 1);
  const OccupancyMap::Counts counts = map.counts();
  CHECK(first.occupied == counts.occupied);
  CHECK(publisher.publishMap(map, 2).regionsSent == 0);  // nothing changed

  Received r;
  auto client = connect(server.port(), r, [](const AdvertisedChannel& c) { return c.topic == "/voxen/map/regions"; });
  REQUIRE(r.waitFor("/voxen/map/regions", first.regions));
  // Decode every region (docs/live.md) and compare with the map's occupied voxels.
  std::set<std::tuple<int32_t, int32_t, int32_t>> sent, expected;
  auto decodeBase64 = [](const std::string& text) {
    std::vector<uint8_t> out;
    uint32_t buffer = 0;
    int bits = 0;
    for (const char c : text) {
      const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      const char* at = std::strchr(digits, c);
      if (c == '=' || !at) break;
      buffer = buffer << 6 | uint32_t(at - digits);
      bits += 6;
      if (bits >= 8) out.push_back(uint8_t(buffer >> (bits -= 8)));
    }
    return out;
  };
  for (const std::string& message : r.of("/voxen/map/regions")) {
    auto field = [&](const std::string& name) { return message.substr(message.find("\"" + name + "\":") + name.size() + 3); };
    int rx = 0, ry = 0, rz = 0;
    REQUIRE(std::sscanf(field("region").c_str(), "[%d,%d,%d", &rx, &ry, &rz) == 3);
    const std::string occupied = field("occupied").substr(1);
    const std::vector<uint8_t> bytes = decodeBase64(occupied.substr(0, occupied.find('"')));
    for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
      const uint32_t index = bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | uint32_t(bytes[i + 3]) << 24;
      const VoxelCoord v = map.voxelOf({rx, ry, rz}, index);
      sent.insert({v.x, v.y, v.z});
    }
  }
  for (const auto& [key, region] : map.regions()) {
    const auto values = region.occupancy();
    for (uint32_t i = 0; i < values.size(); ++i)
      if (map.classify(values[i]) == VoxelClass::Occupied) {
        const VoxelCoord v = map.voxelOf(key, i);
        expected.insert({v.x, v.y, v.z});
      }
  }
  CHECK(sent.size() == counts.occupied);
  CHECK(sent == expected);

  // More rays change some regions: only those are sent again.
  std::vector<Ray> more(rays.begin(), rays.begin() + 20);
  for (Ray& ray : more) ray.sample.z += 3.0;
  integrator.integrate(more);
  const MapPublishStats second = publisher.publishMap(map, 3);
  CHECK(second.regionsSent > 0);
  CHECK(second.regionsSent < map.regions().size());
  CHECK(second.occupied == map.counts().occupied);
  // A region dropped from the map is sent as a deletion (occupied_count 0).
  const RegionKey dropped = map.regions().begin()->first;
  const bool hadOccupied = publisher.publishMap(map, 4).regionsSent == 0;
  map.evictRegion(dropped);
  const MapPublishStats third = publisher.publishMap(map, 5);
  CHECK(hadOccupied);
  CHECK(third.occupied == map.counts().occupied);
}

TEST_CASE("Live source: a recording played through the server gives the file's rays, bit for bit", "[live][mcap]") {
  vt::TempDir dir("live-play");
  const SyntheticScene scene = SyntheticScene::generate(4);
  LidarConfig lidar;
  lidar.rings = 8, lidar.columns = 128, lidar.scans = 6, lidar.seed = 4, lidar.threads = 1;
  writeLidarRecording(scene, lidar, dir.path() / "run.mcap", {});
  RayReader reader(dir.path() / "run.mcap");
  std::vector<Ray> fileRays;
  while (reader.read(fileRays, 1 << 20) > 0) {
  }

  FoxgloveServer server({.port = 0});
  LiveCloudSource source({.url = "ws://127.0.0.1:" + std::to_string(server.port())});
  std::thread player([&] { playRecording(dir.path() / "run.mcap", server, {.rate = 4.0, .waitForSubscriberSeconds = 10.0}); });
  std::vector<Ray> liveRays;
  uint64_t clouds = 0;
  const Clock::time_point until = Clock::now() + std::chrono::seconds(30);
  while (clouds < uint64_t(lidar.scans) && Clock::now() < until)
    if (std::optional<LiveCloud> cloud = source.next(std::chrono::milliseconds(100))) {
      ++clouds;
      CHECK(cloud->sensorPose.has_value());
      liveRays.insert(liveRays.end(), cloud->rays.begin(), cloud->rays.end());
    }
  player.join();
  CHECK(clouds == uint64_t(lidar.scans));
  REQUIRE(liveRays.size() == fileRays.size());
  bool same = true;
  for (size_t i = 0; i < liveRays.size() && same; ++i)
    same = liveRays[i].origin == fileRays[i].origin && liveRays[i].sample == fileRays[i].sample &&
           liveRays[i].time == fileRays[i].time && liveRays[i].intensity == fileRays[i].intensity;
  CHECK(same);
  const LiveInputStats stats = source.stats();
  CHECK(stats.droppedBehind == 0);
  CHECK(stats.malformed == 0);
  CHECK(stats.frames == "map -> odom -> lidar");
  CHECK(stats.load.skippedNonFinite == reader.stats().skippedNonFinite);
}

TEST_CASE("Live source: a cloud topic that never comes is an error naming the topics there are", "[live]") {
  FoxgloveServer server({.port = 0});
  server.advertise({.topic = "/camera/image", .schemaName = "sensor_msgs/Image", .encoding = "ros1", .schemaEncoding = "ros1msg"});
  LiveCloudSource source({.url = "ws://127.0.0.1:" + std::to_string(server.port()), .cloudTopic = "/points",
                          .topicTimeoutSeconds = 0.5});
  std::string error;
  const Clock::time_point until = Clock::now() + std::chrono::seconds(10);
  while (error.empty() && Clock::now() < until) {
    try {
      source.next(std::chrono::milliseconds(50));
    } catch (const Error& e) {
      error = e.what();
    }
  }
  CHECK_THAT(error, Catch::Contains("no point cloud arrived on topic /points") && Catch::Contains("/camera/image (sensor_msgs/Image, ros1)"));
}

TEST_CASE("Map publisher: the heightmap grid holds the heightmap's heights, the mesh its triangles", "[live]") {
  OccupancyModel model;
  model.resolution = 0.2;
  OccupancyMap map(model);
  CpuIntegrator integrator(map);
  std::vector<Ray> rays;
  for (int i = 0; i < 60; ++i)
    for (int j = 0; j < 60; ++j)
      rays.push_back({.origin = {0.1 * i, 0.1 * j, 2.0}, .sample = {0.1 * i, 0.1 * j, 0.05 * (i % 5)}});
  integrator.integrate(rays);
  const Heightmap heightmap = computeHeightmap(map, {});
  TsdfMesh mesh;
  mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 1}, {1, 1, 2}};
  mesh.faces = {{0, 1, 2}, {1, 3, 2}};
  FoxgloveServer server({.port = 0});
  MapPublisher publisher(server, {});
  publisher.publishHeightmap(heightmap, 1);
  publisher.publishMesh(mesh, 2);
  Received r;
  auto client = connect(server.port(), r, [](const AdvertisedChannel& c) {
    return c.topic == "/voxen/map/heightmap" || c.topic == "/voxen/map/mesh";
  });
  REQUIRE(r.waitFor("/voxen/map/heightmap", 1));
  REQUIRE(r.waitFor("/voxen/map/mesh", 1));
  const std::string grid = r.of("/voxen/map/heightmap").front();
  CHECK_THAT(grid, Catch::Contains("\"column_count\":" + std::to_string(heightmap.width())) &&
                       Catch::Contains("\"cell_stride\":8") && Catch::Contains("\"name\":\"height\""));
  // The data: width x height cells of (height, headroom), float32 little-endian.
  const size_t at = grid.find("\"data\":\"") + 8;
  const std::string data = grid.substr(at, grid.find('"', at) - at);
  CHECK(data.size() == (size_t(heightmap.width()) * heightmap.height() * 8 + 2) / 3 * 4);
  const std::string scene = r.of("/voxen/map/mesh").front();
  const size_t from = scene.find("\"points\":[");
  const std::string list = scene.substr(from, scene.find(']', from) - from);
  size_t points = 0;
  for (size_t p = list.find("{\"x\":"); p != std::string::npos; p = list.find("{\"x\":", p + 1)) ++points;
  CHECK(points == 6);  // two triangles, three corners each
  CHECK_THAT(scene, Catch::Contains("\"id\":\"mesh 0\"") && Catch::Contains("\"triangles\":[{"));
}

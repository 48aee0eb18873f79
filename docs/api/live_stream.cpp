// A map on a Foxglove WebSocket server, and a client reading it back: what `voxen serve` does,
// in a program of your own (voxen::live, docs/live.md). Foxglove Studio or the browser page
// could connect instead of the client; here it checks that every occupied voxel arrived.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <voxen/live/foxglove_client.hpp>
#include <voxen/live/foxglove_server.hpp>
#include <voxen/live/map_publisher.hpp>
#include <voxen/voxen.hpp>

int main() {
  voxen::Context ctx;
  voxen::Mapper mapper = voxen::Mapper::load(ctx, "room.vxm");
  const voxen::OccupancyMap& map = mapper.map();

  voxen::live::FoxgloveServer server({.port = 0});  // 127.0.0.1, any free port
  voxen::live::MapPublisher publisher(server, {});
  const voxen::live::MapPublishStats sent = publisher.publishMap(map, 0);

  // A client: the server sends each region's newest message as soon as it subscribes.
  std::mutex mutex;
  uint64_t received = 0, regions = 0;
  voxen::live::FoxgloveClient client(
      {.url = server.url(), .wants = [](const voxen::live::AdvertisedChannel& c) { return c.topic == "/voxen/map/regions"; }},
      [&](const voxen::live::AdvertisedChannel&, uint64_t, std::span<const uint8_t> bytes) {
        const std::string json(bytes.begin(), bytes.end());
        const size_t at = json.find("\"occupied_count\":");
        std::lock_guard lock(mutex);
        received += std::stoull(json.substr(at + 17));
        ++regions;
      },
      {});
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(mutex);
      if (regions == sent.regions) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::lock_guard lock(mutex);
  std::printf("served %llu regions on %s; the client received %llu occupied voxels (the map has %llu)\n",
              (unsigned long long)sent.regions, server.url().c_str(), (unsigned long long)received,
              (unsigned long long)map.counts().occupied);
  return received == map.counts().occupied ? 0 : 1;
}

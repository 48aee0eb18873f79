// `voxen serve MAP|STORE`: a finished map (a map file, a region store or a PostgreSQL store)
// on a Foxglove WebSocket server, with the browser page on the same port
// (voxen/live/map_publisher.hpp), until Ctrl-C or --duration.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "commands.hpp"
#include "commands/live/live_server_options.hpp"
#include "commands/map_source.hpp"
#include "stop_request.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/error.hpp"
#include "voxen/live/map_publisher.hpp"
#include "voxen/store/store_name.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"
#include "voxen_apps/number_checks.hpp"

namespace voxen::cli {

namespace {

struct ServeArgs {
  std::string map, session, frameId = "map";
  LiveServerArgs server;
  std::optional<double> duration;
  bool noGrid = false, quiet = false;
};

int serve(const CommonOptions& options, const ServeArgs& args) {
  const OccupancyMap map = loadMapOrStore(args.map, budgetedLoad(options), std::nullopt, nullptr, args.session);
  live::FoxgloveServer server(serverOptionsOf(args.server));
  live::MapPublisher publisher(server, {.frameId = args.frameId});
  const live::MapPublishStats published = publisher.publishMap(map, wallClockNs());
  std::string gridNote = "no 2D map (--no-grid)";
  if (!args.noGrid) {
    try {
      const Heightmap heightmap = computeHeightmap(map, {});
      publisher.publishGrid(heightmap, wallClockNs());
      publisher.publishHeightmap(heightmap, wallClockNs());
      gridNote = "2D map and heightmap " + std::to_string(heightmap.width()) + " x " + std::to_string(heightmap.height()) + " cells";
    } catch (const Error& e) {
      gridNote = std::string("no 2D map (") + e.what() + ")";
    }
  }
  // A TSDF map's surface (voxen map --tsdf): its mesh, once.
  if (map.layout().has(kTsdfLayer)) {
    const TsdfMesh mesh = meshTsdfCpu(map, {});
    publisher.publishMesh(mesh, wallClockNs());
    gridNote += "; TSDF mesh of " + std::to_string(mesh.faces.size()) + " triangles";
  }
  const OccupancyMap::Counts counts = map.counts();
  // A server store's URL may hold a password: the status every client reads, and stderr, name
  // it without one.
  const std::string name = redactedStoreName(args.map);
  live::LiveStatus status{.state = "serving", .source = name, .regions = published.regions,
                          .occupiedVoxels = counts.occupied, .freeVoxels = counts.free, .resolution = map.model().resolution};
  publisher.publishStatus(status, wallClockNs());
  const bool talk = !args.quiet;
  if (talk) {
    std::fprintf(stderr, "%s\n", serverBanner("voxen serve", server, args.server).c_str());
    std::fprintf(stderr, "voxen serve: %s: %llu occupied voxels in %llu regions; %s; Ctrl-C ends it\n", name.c_str(),
                 (unsigned long long)published.occupied, (unsigned long long)published.regions, gridNote.c_str());
  }
  StopRequest stopRequest("\nvoxen serve: stopping (again to stop at once)\n");
  const auto start = std::chrono::steady_clock::now();
  uint64_t clients = 0;
  while (!stopRequest.signal()) {
    if (args.duration && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= *args.duration) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const uint64_t now = server.counters().clients;
    if (now != clients) {  // the status names the clients connected
      clients = now;
      publisher.publishStatus(status, wallClockNs());
    }
  }
  const live::FoxgloveServerCounters c = server.counters();
  if (options.json)
    std::printf("{\"occupied_voxels\":%llu,\"regions\":%llu,\"connections\":%llu,\"refused\":%llu,\"messages_sent\":%llu,"
                "\"bytes_sent\":%llu,\"page_requests\":%llu}\n",
                (unsigned long long)published.occupied, (unsigned long long)published.regions, (unsigned long long)c.connections,
                (unsigned long long)c.refused, (unsigned long long)c.messagesSent, (unsigned long long)c.bytesSent,
                (unsigned long long)c.pageRequests);
  else if (talk)
    std::fprintf(stderr, "voxen serve: %llu connections (%llu refused), %llu messages sent\n", (unsigned long long)c.connections,
                 (unsigned long long)c.refused, (unsigned long long)c.messagesSent);
  return 0;
}

CommandRun setupServe(CLI::App& command) {
  auto args = std::make_shared<ServeArgs>();
  command.add_option("map", args->map, "the map file, region store or postgresql:// store to serve")->required();
  addSessionOption(command, args->session);
  addLiveServerOptions(command, args->server, 8765);
  command.add_option("--frame-id", args->frameId, "the frame the messages name")->capture_default_str();
  command.add_option("--duration", args->duration, "stop after this many seconds (default: at Ctrl-C)")
      ->check(apps::numberIn(0.0, 1e9, "seconds", apps::LowEnd::Open));
  command.add_flag("--no-grid", args->noGrid, "publish no 2D map or heightmap (computing them takes a while on a large map)");
  command.add_flag("--quiet", args->quiet, "nothing on stderr but errors");
  return [args](const CommonOptions& options) { return serve(options, *args); };
}

}  // namespace

static CommandRegistration registration{"serve", "serve a map to Foxglove Studio and a browser page (Foxglove WebSocket)",
                                        &setupServe, Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

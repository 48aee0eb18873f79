// `voxen map --input FILE --serve [HOST]:PORT`: a file run's map on a Foxglove WebSocket server
// as it grows (LiveMapServer): between two chunks, at --serve-rate, the host map is brought up
// to date with the GPU and a copy handed to the server's thread. Only in the sequential order
// (the default), whose map does not depend on where the run syncs: in the two-phase order a
// sync cuts a batch, so serving would change the map.
#include <chrono>
#include <memory>

#include "commands/live/live_map_server.hpp"
#include "commands/map/map_args.hpp"

namespace voxen::cli {

std::function<void(Mapper&)> serveFileRun(const MapArgs& args, MappingRunOptions& run) {
  if (args.integration.order != UpdateOrder::Sequential)
    throw UsageError(std::string("--serve with --update-order ") + updateOrderName(args.integration.order) +
                     " (or --ndt): each publication syncs the map, which cuts a batch of that order and so changes the map; "
                     "serve a sequential run (the default order)");
  auto server = std::make_shared<LiveMapServer>(args.live.serve, args.live.serveRate, args.cloud);
  if (!args.quiet) std::fprintf(stderr, "%s\n", server->banner().c_str());
  const double resolution = args.model().resolution;
  const std::string source = args.cloud;
  const auto start = std::chrono::steady_clock::now();
  run.betweenChunks = [server, source, resolution, start, previous = run.betweenChunks](MapperChunkBoundary& b) {
    if (previous) previous(b);
    if (!server->due() && !b.last()) return;
    b.sync();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    server->publish(std::make_shared<const OccupancyMap>(b.map()),
                    {.state = "mapping", .source = source, .rays = b.raysTaken(),
                     .raysPerSecond = wall > 0 ? double(b.raysTaken()) / wall : 0.0, .resolution = resolution});
  };
  return [server, source, resolution, linger = args.live.serveLinger](Mapper& mapper) {
    server->publish(mapper.snapshot(), {.state = "done", .source = source, .rays = mapper.stats().integration.rays,
                                        .resolution = resolution});
    server->finish(linger);
  };
}

}  // namespace voxen::cli

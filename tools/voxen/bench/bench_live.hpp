#pragma once
// `voxen bench live` (issue 41's numbers): the measurements, one function each
// (bench_live_runs.cpp), that bench_live_command.cpp runs, tabulates and writes as JSON.
//
// - runLive: a recording played by playRecording on a FoxgloveServer (127.0.0.1, a free port)
//   into LiveCloudSource -> Mapper, as `voxen play | voxen map --live [--serve]` run them, in
//   one process; optionally with the map served by `voxen map --serve`'s own LiveMapServer to
//   FoxgloveClient subscribers of every channel.
// - runDirect: clouds a live run received, mapped again one after another as fast as the
//   mapper goes (the throughput, with or without serve, free of the player's pace).
// - runFile: the same recording mapped from the file (RayReader + Mapper::integrateFile, as
//   `voxen map --input` reads it), the reference.
// - warmUp: the first scan on a Context's first Mapper (the pipelines made), timed.
// - buildJoinMap, runJoins: a map of at least --join-regions regions, and clients joining it.
//
// Threads: each function runs its own threads (player, source, server, clients) and joins
// them before it returns; the caller's thread maps. Not for two calls at once on one Context.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "voxen/context.hpp"
#include "voxen/live/live_cloud_source.hpp"
#include "voxen/map_snapshot.hpp"

namespace voxen::cli {

struct BenchLiveArgs {
  int scans = 50;          // 64 x 1024 scans at 10 Hz: 5 s of stream
  double resolution = 0.2;
  int clients = 10;        // subscribers of every channel with serve
  double serveRate = 2.0;  // map publications per second (voxen map --serve-rate)
  int repeat = 5;          // throughput rounds: the file, then the clouds without and with serve, alternating
  int joins = 5;
  int joinRegions = 100;   // the joined map: the 10 Hz run's tiled until it has this many regions
};

struct LiveRunSetup {
  double rate = 1.0;   // the player's: 1 plays at the recorded 10 Hz
  size_t queue = 8;    // LiveInputOptions::queueClouds (voxen map --live-queue's default)
  bool serve = false;
  int clients = 0;
  double serveRate = 2.0;
  double resolution = 0.2;
  bool keep = false;  // return the clouds mapped (for runDirect) and the final map (for the joins)
};

struct LiveRunResult {
  LiveRunSetup setup;
  uint64_t played = 0, received = 0, mapped = 0, droppedBehind = 0, droppedNoPose = 0, malformed = 0;
  uint64_t rays = 0, steadyRays = 0;  // steadyRays: the clouds after the first
  double firstLatencyMs = 0;
  std::vector<double> latenciesMs;    // arrival to synced, the clouds after the first
  double busySeconds = 0;             // integrate + sync, the clouds after the first
  double steadySeconds = 0;           // the first cloud synced to the last synced (wall)
  double steadyCpuSeconds = 0;        // the process's CPU time in that window (every thread)
  double snapshotSeconds = 0;         // Mapper::snapshot() on the mapping thread (serve)
  uint64_t publications = 0;
  uint64_t clientMessages = 0, clientBytes = 0;  // summed over the clients
  double playMaxLateMs = 0, playSeconds = 0;
  std::vector<live::LiveCloud> clouds;  // the clouds mapped (keep)
  std::optional<MapSnapshot> map;       // the final map (keep)
  // The mapping thread's rates, the first cloud left out (it makes the pipelines).
  double steadyRaysPerSecond() const { return steadySeconds > 0 ? double(steadyRays) / steadySeconds : 0.0; }
  double busyRaysPerSecond() const { return busySeconds > 0 ? double(steadyRays) / busySeconds : 0.0; }
  uint64_t dropped() const { return droppedBehind + droppedNoPose; }
};

struct FileRunResult {
  uint64_t rays = 0;
  double seconds = 0;
  double raysPerSecond() const { return seconds > 0 ? double(rays) / seconds : 0.0; }
};

// A live run's map, tiled side by side along x until it has the regions asked for (the map
// of a longer drive, made without mapping one).
struct JoinMap {
  OccupancyMap map;
  uint64_t sourceRegions = 0;  // the live run's regions with an occupied voxel
  int tiles = 0;
  uint64_t regions = 0;        // with an occupied voxel: sourceRegions * tiles
};

struct JoinResult {
  uint64_t regions = 0, occupied = 0;  // the served map's (MapPublishStats)
  std::vector<double> regionsMs;       // construction to the last /voxen/map/regions message
  std::vector<double> sceneMs;         // ... to the last /voxen/map/occupied message
  std::vector<uint64_t> bytes;         // the server's bytes sent for each join
  bool complete = true;                // every join got every region within 10 s
};

LiveRunResult runLive(Context& context, const std::filesystem::path& recording, const LiveRunSetup& setup);
// `setup.rate` and `queue` are not used: every cloud is mapped, none waits for a player.
LiveRunResult runDirect(Context& context, const std::vector<live::LiveCloud>& clouds, const LiveRunSetup& setup);
FileRunResult runFile(Context& context, const std::filesystem::path& recording, double resolution);
// Milliseconds to integrate and sync the recording's first scan on a new Mapper.
double warmUp(Context& context, const std::filesystem::path& recording, double resolution);
JoinMap buildJoinMap(const OccupancyMap& from, int regions);
JoinResult runJoins(const OccupancyMap& map, int joins);

// The q-quantile (0..1) of `values` by nearest rank; 0 for none.
double quantile(std::vector<double> values, double q);

}  // namespace voxen::cli

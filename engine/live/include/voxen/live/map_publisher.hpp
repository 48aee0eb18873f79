#pragma once
// voxen::live::MapPublisher: a map, its 2D map, the sensor's pose and path and a status, on a
// FoxgloveServer's channels (docs/live.md lists them and their messages). Each call publishes
// only what changed since the call before: the regions whose set of occupied voxels changed
// (Region::occupiedSetStamp), and regions gone from the map as deletions; the server keeps each
// region's newest message for clients that join later.
//
//   voxen::live::FoxgloveServer server({.port = 8765});
//   voxen::live::MapPublisher publisher(server, {});
//   publisher.publishMap(mapper.latestSnapshot().map(), nowNs);   // at the rate the caller chooses
//   publisher.publishGrid(mapper.heightmap(), nowNs);
//
// Threads: one thread at a time calls the publish methods (the map must not change during a
// call: a snapshot's map never does); the server sends on its own thread.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/heightmap/heightmap.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"
#include "voxen/live/foxglove_server.hpp"
#include "voxen/live/sensor_pose.hpp"
#include "voxen/map/map.hpp"

namespace voxen::live {

struct MapPublisherOptions {
  std::string frameId = "map";
  // The colour scale of the voxels' heights, metres (low, high); none: the map's occupied
  // voxels' heights at the first publishMap, kept for the run so that colours do not shift.
  std::optional<std::array<double, 2>> heightRange{};
  double pathStepMetres = 0.1;  // a pose joins the path once the sensor moved this far
  bool sceneCubes = true;       // also foxglove.SceneUpdate cubes (Foxglove Studio's 3D panel)
};

struct MapPublishStats {
  uint64_t regionsSent = 0;    // regions published (changed), deletions included
  uint64_t regionsRemoved = 0;
  uint64_t occupiedSent = 0;   // occupied voxels in the regions published
  uint64_t regions = 0;        // regions with an occupied voxel, after the call
  uint64_t occupied = 0;       // occupied voxels the published state holds
};

// The status a caller publishes (voxen.Status, docs/live.md).
struct LiveStatus {
  std::string state;   // "mapping", "done", "waiting", "reconnecting", "serving"
  std::string source;  // the input: a URL, a file
  uint64_t clouds = 0, droppedClouds = 0, rays = 0;
  double raysPerSecond = 0.0;
  double latencyLastMs = 0.0, latencyMaxMs = 0.0;
  uint64_t regions = 0, occupiedVoxels = 0, freeVoxels = 0;
  double resolution = 0.0;
  double memoryMb = 0.0;
};

class MapPublisher {
 public:
  // Advertises the channels on `server`, which must outlive the publisher.
  MapPublisher(FoxgloveServer& server, MapPublisherOptions options);

  MapPublishStats publishMap(const OccupancyMap& map, uint64_t timeNs);
  // The 2D map: the heightmap's level 0 as nav_msgs/OccupancyGrid values (-1 unknown, 0 free,
  // 100 occupied; the Nav2 trinary map voxen heightmap exports).
  void publishGrid(const Heightmap& heightmap, uint64_t timeNs);
  // The heightmap's level 0 as a foxglove.Grid of float32 fields: height (metres, NaN where
  // the column has no surface) and headroom (metres of room above it, +inf: open sky).
  void publishHeightmap(const Heightmap& heightmap, uint64_t timeNs);
  // A TSDF map's surface (voxen/tsdf/tsdf_mesh.hpp) as foxglove.SceneUpdate triangle lists,
  // in entities of at most 20,000 triangles, coloured by the mesh's colours or by height.
  void publishMesh(const TsdfMesh& mesh, uint64_t timeNs);
  void publishPose(const SensorPose& pose, uint64_t timeNs);
  void publishStatus(const LiveStatus& status, uint64_t timeNs);
  // The voxels' colour scale in use (after the first publishMap), metres.
  std::optional<std::array<double, 2>> heightRange() const { return heightRange_; }

 private:
  FoxgloveServer& server_;
  MapPublisherOptions options_;
  ChannelId regions_, scene_, grid_, heightmap_, mesh_, pose_, pathChannel_, status_;
  size_t meshEntities_ = 0;  // entities the last mesh used (the rest are deleted)
  std::optional<std::array<double, 2>> heightRange_;
  // Per region published: its occupiedSetStamp then and its occupied count.
  struct Sent {
    uint64_t stamp = 0;
    uint32_t occupied = 0;
  };
  std::unordered_map<RegionKey, Sent, RegionKeyHash> sent_;
  uint64_t occupiedTotal_ = 0;
  std::vector<SensorPose> path_;  // poses at least pathStepMetres apart
  std::string pathJson_;          // their JSON objects, comma-separated
};

}  // namespace voxen::live

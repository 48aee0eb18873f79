#pragma once
// The seam between the node's two halves, in plain C++17 types. Debian's ROS 1 message
// headers (gencpp's, roscpp 1.15) do not compile as C++20 (they use std::allocator<void>::
// rebind, which C++20 removed), and Voxen's headers need C++20; so the node is two parts:
//   the ROS side (C++17: main.cpp, ros_*.cpp, topic_watch.cpp) talks to the master, turns
//     messages into the types below and back, and serves the services;
//   the engine side (C++20: engine_bridge.cpp and what it uses) owns the Mapper, the tf
//     buffer, the cloud queue and the threads, and never sees a ROS type.
// This header is the whole interface; it includes no ROS and no Voxen header.
//
// Threads: an Engine's methods may be called from any thread (each says what it waits for);
// the publish callback is called on the engine's publisher thread.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace voxen_ros {

// The node's parameters as read from the parameter server (private namespace), by name,
// for the engine side to check and turn into settings (node_settings.hpp). Only the ones set.
struct Parameters {
  std::map<std::string, double> numbers;
  std::map<std::string, int> integers;
  std::map<std::string, bool> flags;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::vector<double>> lists;
};
enum class ParameterKind { Number, Integer, Flag, Text, List };
struct ParameterSpec {
  const char* name;
  ParameterKind kind;
};
// Every parameter the node reads, with its kind (docs/ros1.md lists them with their meaning).
const std::vector<ParameterSpec>& parameterSpecs();

// A sensor_msgs/PointCloud2, its data borrowed from the message `owner` keeps alive.
struct CloudField {
  std::string name;
  uint32_t offset = 0;
  uint8_t datatype = 0;
  uint32_t count = 1;
};
struct CloudMessage {
  int64_t stampNs = 0;  // header.stamp: sec * 1e9 + nsec
  std::string frameId;
  uint32_t height = 0, width = 0;
  std::vector<CloudField> fields;
  bool bigEndian = false;
  uint32_t pointStep = 0, rowStep = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool dense = true;
  std::shared_ptr<const void> owner;
};

// One geometry_msgs/TransformStamped of a tf2_msgs/TFMessage.
struct Transform {
  int64_t stampNs = 0;
  std::string parent, child;  // header.frame_id, child_frame_id
  double translation[3] = {0, 0, 0};
  double rotation[4] = {0, 0, 0, 1};  // x, y, z, w as the message stores them
};

// The 2D map as nav_msgs/OccupancyGrid fields: cells row-major, row 0 the lowest y,
// 0 free, 100 lethal, -1 unknown.
struct GridData {
  uint32_t width = 0, height = 0;
  float resolution = 0.0f;
  double originX = 0.0, originY = 0.0;
  std::vector<int8_t> cells;
};
// Occupied voxel centres (x, y, z per voxel) and their log-odds; regions in key order.
struct VoxelData {
  std::vector<float> xyz;
  std::vector<float> logOdds;
  double resolution = 0.0;
};
// One publication: the map's messages when the map changed since the last, and the status.
struct PublicationData {
  bool mapChanged = false;
  std::optional<GridData> grid;  // none while the map has no occupied voxel
  VoxelData voxels;
  std::string frame;  // the fixed frame
  std::string statusJson;
};

// Query answers (the services' responses, field for field).
struct OccupancyResult {
  bool success = false;
  std::string message;
  std::vector<int8_t> occupancy;  // 1 occupied, 0 free, -1 unknown
  std::vector<float> logOdds;     // NaN where unknown
  std::vector<std::string> status;
  uint64_t snapshotVersion = 0, snapshotClouds = 0;
};
struct ClearanceResult {
  bool success = false;
  std::string message;
  std::vector<float> clearance;
  std::vector<float> gradient;  // x, y, z per point
  std::vector<std::string> status;
  uint64_t snapshotVersion = 0;
};
struct RaycastResult {
  bool success = false;
  std::string message;
  std::vector<uint8_t> hit;
  std::vector<double> distance;
  std::vector<double> point;  // x, y, z per ray
  std::vector<std::string> status;
  uint64_t snapshotVersion = 0;
};
struct PathResult {
  bool success = false;
  std::string message;
  std::vector<uint8_t> collides;
  std::vector<int32_t> segment;
  std::vector<float> t;
  std::vector<std::string> status;
  uint64_t snapshotVersion = 0;
};
struct SaveResult {
  bool success = false;
  std::string message;
  uint64_t clouds = 0;
};

// Where the engine side's log lines go (main.cpp: rosconsole). Set once, before an Engine is made.
enum class LogLevel { Debug, Info, Warn, Error, Fatal };
void setLogSink(std::function<void(LogLevel, const std::string&)> sink);

class Engine {
 public:
  // Checks the parameters (std::runtime_error naming the parameter) and makes the map;
  // opens the GPU when the map runs on it (std::runtime_error when there is none).
  Engine(const Parameters& parameters, std::function<void(PublicationData)> publish);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The settings in one line, and the ones the ROS side uses.
  std::string settingsText() const;
  std::string cloudTopic() const;
  double cloudTimeout() const;
  uint32_t queueSize() const;

  // Starts the mapping and publisher threads.
  void start();
  // Ends them: the queued clouds integrated, the last publication made, the map saved to
  // ~output (when it holds a cloud). Returns false when mapping or the save failed.
  bool stop();

  // A whole cloud into the queue; false when it was dropped (full queue), counted.
  bool pushCloud(CloudMessage cloud);
  uint64_t droppedClouds() const;
  void addTransforms(const std::vector<Transform>& transforms, bool isStatic);

  // Queries on the latest snapshot (any thread; never wait for mapping). xyz: 3 per point.
  OccupancyResult occupancy(const std::vector<double>& xyz) const;
  ClearanceResult clearance(const std::vector<double>& xyz) const;
  RaycastResult raycast(const std::vector<double>& origins, const std::vector<double>& directions, double maxRange,
                        bool unknownBlocks) const;
  // Spheres swept along paths (path i: points offsets[i] .. offsets[i + 1]); unknown is
  // "occupied" (or empty), "free" or "report".
  PathResult checkPaths(const std::vector<double>& xyz, const std::vector<uint64_t>& offsets, double radius,
                        const std::string& unknown) const;
  // The map now, into `path` (empty: ~output), atomically; waits for the mapping thread.
  SaveResult save(const std::string& path);
  std::string statusJson() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen_ros

#pragma once
// The one thread that owns the node's voxen::Mapper: it takes whole clouds from the queue in
// order, makes their rays (cloud_rays.hpp) once tf covers them, integrates them, and at the
// publish rate publishes a snapshot (Mapper::snapshot(), with the clearance layer when asked
// for) and the heightmap for the OccupancyGrid, handing both to the publisher. Other threads
// reach the Mapper only through post() (the save service), latestSnapshot() (queries, any
// thread: Mapper::latestSnapshot() never waits for mapping) and status().
//
// Threads: construct, start() and stop() from one thread (main); post(), latestSnapshot() and
// status() from any.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cloud_queue.hpp"
#include "cloud_rays.hpp"
#include "voxen/input/live_tf.hpp"
#include "node_settings.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/mapper.hpp"

namespace voxen_ros {

// What the node has done, for the status topic and the log.
struct NodeStatus {
  uint64_t cloudsReceived = 0, cloudsDropped = 0;  // at the queue (dropped: it was full)
  uint64_t cloudsIntegrated = 0;                   // posed and integrated (empty ones included)
  uint64_t cloudsMalformed = 0;                    // refused by the decoder (fields, frame, sizes)
  uint64_t cloudsBackwards = 0;                    // stamped before the cloud taken ahead of them
  uint64_t cloudsWithoutTf = 0;                    // tf never connected their frame to the fixed frame
  uint64_t rays = 0, pointsNonFinite = 0, pointsOutsideTf = 0, pointsInBox = 0, pointsNearSensor = 0;
  uint64_t tfReceived = 0, tfRefused = 0;
  uint64_t snapshotVersion = 0, snapshotClouds = 0;  // the latest publication's
  uint64_t occupied = 0, free = 0, regions = 0;      // in that snapshot
  uint64_t queued = 0;
  // A cloud's arrival to its rays handed to the Mapper (integrate() returned: on the GPU its
  // batch may still run; the next snapshot syncs it), last and largest.
  double lastLatencyMs = 0.0, maxLatencyMs = 0.0;
  // The mapping thread's time for the last publication: clearance, snapshot and heightmap
  // (clouds wait in the queue meanwhile).
  double publishMs = 0.0;
  std::string fixedFrame, sensorFrame;
  std::string lastError;
  // One JSON object.
  std::string json() const;
};

// One publication: the map as of a snapshot and the heightmap made from the same map.
struct Publication {
  voxen::MapSnapshot snapshot;
  uint64_t clouds = 0;
  std::optional<voxen::Heightmap> heightmap;  // none while the map has no occupied voxel
  std::string frame;                          // the fixed frame
  uint32_t gridLevel = 0;                     // the heightmap level the grid shows
  std::optional<uint32_t> gridMaxCost;        // costs above it are lethal in the grid
  NodeStatus status;
};

class MappingThread {
 public:
  // Makes the Mapper (throws voxen::SettingError / voxen::Error for settings that cannot work).
  MappingThread(voxen::Context& context, const NodeSettings& settings, CloudQueue& queue, voxen::detail::LiveTf& tf,
                std::function<void(Publication)> publish);
  ~MappingThread();
  MappingThread(const MappingThread&) = delete;
  MappingThread& operator=(const MappingThread&) = delete;

  void start();
  // Ends the thread: the clouds still queued are integrated (without waiting for tf), the
  // last publication made, and the map saved to the output parameter when it holds a cloud.
  void stop();

  // Runs `task` on the mapping thread between two clouds; the future carries its exception.
  std::future<void> post(std::function<void(voxen::Mapper&)> task);
  voxen::MapSnapshot latestSnapshot() const { return mapper_.latestSnapshot(); }
  NodeStatus status() const;
  // Whether the thread ended on an error (status().lastError says which).
  bool failed() const { return failed_.load(); }

 private:
  void warmUp(voxen::Context& context);
  void run();
  void runTasks();
  void take(QueuedCloud cloud);
  void chooseLayoutIfDue(bool now);
  void integrate(const QueuedCloud& cloud);
  void publish();
  void finalSave();
  std::string where(const QueuedCloud& cloud) const;

  const NodeSettings& settings_;
  CloudQueue& queue_;
  voxen::detail::LiveTf& tf_;
  std::function<void(Publication)> publish_;
  voxen::Mapper mapper_;
  CloudRays rays_;
  std::vector<voxen::Ray> rayBuffer_;

  // Clouds held until the topic's layout is chosen: the first with points (and any empty ones).
  std::deque<QueuedCloud> waitingForLayout_;
  std::optional<std::chrono::steady_clock::time_point> layoutDeadline_;

  std::thread thread_;
  std::atomic<bool> stopping_{false}, failed_{false};
  std::atomic<bool> draining_{false};
  std::mutex tasksMutex_;
  std::deque<std::packaged_task<void()>> tasks_;

  mutable std::mutex statusMutex_;
  NodeStatus status_;  // under statusMutex_ (the queue's and tf's counts are read live)
  uint64_t publishedClouds_ = UINT64_MAX;
  std::string fixedFrame_;
};

}  // namespace voxen_ros

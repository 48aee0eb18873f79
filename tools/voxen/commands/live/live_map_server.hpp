#pragma once
// `voxen map --serve`: the map as it grows on a Foxglove WebSocket server. The mapping thread
// hands over a snapshot (Mapper::snapshot(), a copy made only when the map changed) at the
// serve rate; a thread of its own turns it into messages (only the regions that changed),
// and the 2D map every few seconds, so the mapping thread never formats a message or computes
// a heightmap.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "commands/live/live_server_options.hpp"
#include "voxen/live/map_publisher.hpp"
#include "voxen/map_snapshot.hpp"

namespace voxen::cli {

class LiveMapServer {
 public:
  // `address`: --serve's [HOST]:PORT; `rate`: publications per second; `source`: for the status.
  LiveMapServer(const std::string& address, double rate, std::string source);
  ~LiveMapServer();
  LiveMapServer(const LiveMapServer&) = delete;
  LiveMapServer& operator=(const LiveMapServer&) = delete;

  std::string banner() const;
  // Mapping thread: whether a publication is due (the rate's period has passed).
  bool due();
  // Mapping thread: the newest map and status, published on the server's own thread (a newer
  // one replaces one not yet published): a Mapper's snapshot, or a copy of a run's host map.
  void publish(MapSnapshot snapshot, const live::LiveStatus& status);
  void publish(std::shared_ptr<const OccupancyMap> map, const live::LiveStatus& status);
  void pose(const live::SensorPose& pose);
  // Publishes what is pending and waits for it (the run's last state), then goes on serving it
  // for `lingerSeconds` (the caller has saved the map: a signal meanwhile just ends the process).
  void finish(double lingerSeconds = 0.0);

 private:
  void run();

  LiveServerArgs args_;
  live::FoxgloveServer server_;
  live::MapPublisher publisher_;
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point last_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const OccupancyMap> map_;
  std::optional<live::LiveStatus> status_;
  std::optional<live::SensorPose> pose_;
  bool stopping_ = false, busy_ = false;
  std::chrono::steady_clock::time_point lastGrid_{};
  std::thread thread_;
};

}  // namespace voxen::cli

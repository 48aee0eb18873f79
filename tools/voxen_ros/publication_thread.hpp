#pragma once
// Hands the mapping thread's publications to the ROS side on a thread of its own: the
// occupied voxels are read out of the snapshot and the grid made from the heightmap here, so
// mapping never waits for them or for the ROS side's sending. A publication that arrives
// while the last is still being made replaces any waiting one (the newest map wins).
//
// Threads: post() from any thread (the mapping thread); the callback runs on this thread.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "engine_bridge.hpp"
#include "mapping_thread.hpp"

namespace voxen_ros {

class PublicationThread {
 public:
  explicit PublicationThread(std::function<void(PublicationData)> send);
  ~PublicationThread();
  PublicationThread(const PublicationThread&) = delete;
  PublicationThread& operator=(const PublicationThread&) = delete;

  void post(Publication publication);
  // Sends what is waiting and ends the thread.
  void stop();

 private:
  void run();

  std::function<void(PublicationData)> send_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::optional<Publication> waiting_;
  bool stopping_ = false;
  uint64_t sentVersion_ = 0;
  std::thread thread_;
};

}  // namespace voxen_ros

#pragma once
// tf from a stream: transforms as they arrive, kept for a while, and the sensor's chain into
// the fixed frame rebuilt when newer transforms are needed. TfBuffer (voxen/input/tf_buffer.hpp)
// is built for a recording's tf, whole and at once; a stream's grows for ever, so this keeps the
// statics and the moving transforms of the last keepSeconds (by stamp) and makes a fresh
// TfBuffer from them when a cloud needs a chain that reaches further than the one it has.
//
// Threads: add() from the client's thread, chain() from the maker's: both under one mutex.
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "voxen/input/ros_messages.hpp"
#include "voxen/input/tf_buffer.hpp"

namespace voxen::live::detail {

class LiveTf {
 public:
  explicit LiveTf(double keepSeconds) : keepSeconds_(keepSeconds) {}

  void add(std::vector<ros::TransformStamped> transforms, bool isStatic);
  // The chain from `sensor` into `fixed` (empty: the root above the sensor) covering time
  // `until` if the transforms so far allow; otherwise the best chain there is (its end before
  // `until`), or nullopt when the frames are not connected yet. `why` says what is missing.
  std::optional<TfBuffer::Chain> chain(const std::string& fixed, const std::string& sensor, double until, std::string& why);
  // Waits until a transform arrives or `deadline` passes.
  void waitForMore(std::chrono::steady_clock::time_point deadline);
  void wake();  // ends every wait (the source is stopping)

  uint64_t transforms() const;
  uint64_t refused() const;
  std::string firstRefusal() const;
  std::vector<std::string> frames() const;  // every frame seen, sorted

 private:
  void rebuild();  // under mutex_

  double keepSeconds_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::string, ros::TransformStamped> statics_;  // by child frame
  std::deque<ros::TransformStamped> moving_;              // in arrival order
  int64_t newestStampNs_ = 0;
  uint64_t version_ = 0, builtVersion_ = ~uint64_t(0);
  TfBuffer buffer_;
  std::map<std::pair<std::string, std::string>, TfBuffer::Chain> chains_;  // of buffer_, by (fixed, sensor)
  uint64_t transforms_ = 0, refused_ = 0;
  std::string firstRefusal_;
  bool stopping_ = false;
};

}  // namespace voxen::live::detail

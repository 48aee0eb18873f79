#pragma once
// tf as it arrives (/tf and /tf_static), in the engine's tf buffer (voxen/input/tf_buffer.hpp)
// rather than tf2_ros's: the same interpolation (linear translation, glm::slerp), composition
// order and refusals as `voxen map` applies to a bag's tf, so that a cloud posed here gets the
// rays the file reader gives it, bit for bit. tf2_ros's BufferCore interpolates with its own
// quaternion code, whose last bits differ.
//
// A cloud is posed once tf covers its points' times (covers()): the transforms around a time
// are then the ones a whole recording's buffer has there, since tf arrives in stamp order.
// History older than `history` seconds before the newest stamp is pruned.
//
// Threads: every method may be called from any thread (one mutex); add() from the ROS
// callbacks, chain() and covers() from the mapping thread. waitForMore() blocks until a
// transform arrives or the deadline passes.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "voxen/input/ros_messages.hpp"
#include "voxen/input/tf_buffer.hpp"

namespace voxen_ros {

class LiveTf {
 public:
  explicit LiveTf(double historySeconds) : history_(historySeconds) {}

  // A message's transforms; a transform the buffer refuses (a second parent, a NaN, a cycle)
  // is counted and its error kept (refusals()).
  void add(const std::vector<voxen::ros::TransformStamped>& transforms, bool isStatic);

  // The chain from `fixedFrame` (empty: the root above the sensor frame) to `sensorFrame`,
  // as tf holds it now; nullopt (and `why` says so) while the frames are not connected.
  std::optional<voxen::TfBuffer::Chain> chain(const std::string& fixedFrame, const std::string& sensorFrame, std::string& why);

  // Transforms received and refused so far; the first refusals' messages.
  uint64_t received() const;
  uint64_t refusedCount() const;
  std::vector<std::string> refusals() const;
  // Frames known now, sorted.
  std::vector<std::string> frames() const;

  // Waits until a transform arrives after this call or `until` passes.
  void waitForMore(std::chrono::steady_clock::time_point until);
  // Wakes every waiter (shutdown).
  void wakeAll();

 private:
  void rebuildLocked();
  void addLocked(const voxen::ros::TransformStamped& t, bool isStatic);

  double history_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  uint64_t generation_ = 0;
  voxen::TfBuffer buffer_;
  std::map<std::string, voxen::ros::TransformStamped> statics_;  // by child frame, latest
  std::deque<voxen::ros::TransformStamped> moving_;              // arrival order
  int64_t newestNs_ = INT64_MIN;
  uint64_t received_ = 0, refusedCount_ = 0;
  std::vector<std::string> refusals_;
};

}  // namespace voxen_ros

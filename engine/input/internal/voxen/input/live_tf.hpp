#pragma once
// tf from a stream (/tf and /tf_static as they arrive: `voxen map --live`, the ROS 1 node), in
// the engine's tf buffer (voxen/input/tf_buffer.hpp) rather than tf2's: the same
// interpolation (linear translation, glm::slerp), composition order and refusals as a
// recording's tf gets, so that a cloud posed here gets the rays the file reader gives it, bit
// for bit (tf2's BufferCore interpolates with its own quaternion code, whose last bits differ).
//
// A recording's TfBuffer is built whole; a stream's grows for ever: moving transforms older
// than `historySeconds` before the newest stamp are dropped (the buffer is rebuilt once the
// oldest kept is twice that old); static ones stay. A cloud is posed once tf covers its
// points' times (the chain's end() reaches them): transforms arrive in stamp order, so the
// transforms around a time are then the ones a whole recording's buffer has there.
//
// Threads: every method may be called from any thread (one mutex): add() from the receiving
// thread, chain() and waitForMore() from the one that poses clouds.
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

namespace voxen::detail {

class LiveTf {
 public:
  explicit LiveTf(double historySeconds) : history_(historySeconds) {}

  // A message's transforms (frames with or without their leading '/'); a transform the
  // buffer refuses (a second parent, a NaN, a cycle) is counted and its error kept.
  void add(const std::vector<ros::TransformStamped>& transforms, bool isStatic);

  // The chain from `fixedFrame` (empty: the root above the sensor frame) to `sensorFrame` as
  // tf holds it now; nullopt (and `why` says why) while the frames are not connected. The
  // chain is made again only when a transform arrived since the last call for these frames.
  std::optional<TfBuffer::Chain> chain(const std::string& fixedFrame, const std::string& sensorFrame, std::string& why);

  uint64_t received() const;      // transforms received
  uint64_t refusedCount() const;  // of them, refused
  std::vector<std::string> refusals() const;  // the first refusals' messages (16 at most)
  std::vector<std::string> frames() const;    // frames known now, sorted

  // Waits until a transform arrives after this call, `until` passes, or wakeAll().
  void waitForMore(std::chrono::steady_clock::time_point until);
  void wakeAll();

 private:
  void rebuildLocked();
  void addLocked(const ros::TransformStamped& t, bool isStatic);

  double history_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  uint64_t generation_ = 0;
  TfBuffer buffer_;
  std::map<std::string, ros::TransformStamped> statics_;  // by child frame, latest
  std::deque<ros::TransformStamped> moving_;              // arrival order
  int64_t newestNs_ = INT64_MIN;
  uint64_t received_ = 0, refusedCount_ = 0;
  std::vector<std::string> refusals_;
  // The last chain made, for (fixed, sensor), and the generation it was made at.
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, TfBuffer::Chain>> chains_;
};

}  // namespace voxen::detail

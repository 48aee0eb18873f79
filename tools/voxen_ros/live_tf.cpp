#include "live_tf.hpp"

#include <climits>

#include "voxen/host/error.hpp"

namespace voxen_ros {

namespace {

// tf2 strips a leading '/' (ROS 1 frames were often written "/base_link"); so does voxen map.
std::string frameName(const std::string& frame) { return !frame.empty() && frame[0] == '/' ? frame.substr(1) : frame; }

}  // namespace

void LiveTf::addLocked(const voxen::ros::TransformStamped& t, bool isStatic) {
  try {
    buffer_.add(t, isStatic);
  } catch (const voxen::Error& e) {
    ++refusedCount_;
    if (refusals_.size() < 16) refusals_.push_back(t.childFrame + " in " + t.parentFrame + ": " + e.what());
    return;
  }
  if (isStatic) statics_[t.childFrame] = t;
  else moving_.push_back(t);
}

void LiveTf::add(const std::vector<voxen::ros::TransformStamped>& transforms, bool isStatic) {
  {
    std::lock_guard lock(mutex_);
    for (voxen::ros::TransformStamped t : transforms) {
      t.parentFrame = frameName(t.parentFrame);
      t.childFrame = frameName(t.childFrame);
      ++received_;
      addLocked(t, isStatic);
      if (!isStatic) newestNs_ = std::max(newestNs_, t.stampNs);
    }
    // Prune: rebuild from what is younger than the history once the oldest kept is twice as old.
    if (!moving_.empty() && newestNs_ - moving_.front().stampNs > int64_t(2.0 * history_ * 1e9)) rebuildLocked();
    ++generation_;
  }
  arrived_.notify_all();
}

void LiveTf::rebuildLocked() {
  const int64_t keepFrom = newestNs_ - int64_t(history_ * 1e9);
  std::deque<voxen::ros::TransformStamped> moving;
  for (voxen::ros::TransformStamped& t : moving_)
    if (t.stampNs >= keepFrom) moving.push_back(std::move(t));
  buffer_ = voxen::TfBuffer();
  moving_.clear();
  for (const auto& [child, t] : statics_) buffer_.add(t, true);
  for (const voxen::ros::TransformStamped& t : moving) addLocked(t, false);
}

std::optional<voxen::TfBuffer::Chain> LiveTf::chain(const std::string& fixedFrame, const std::string& sensorFrame,
                                                    std::string& why) {
  std::lock_guard lock(mutex_);
  try {
    const std::string sensor = frameName(sensorFrame);
    return buffer_.chain(fixedFrame.empty() ? buffer_.rootOf(sensor) : frameName(fixedFrame), sensor);
  } catch (const voxen::Error& e) {
    why = e.what();
    return std::nullopt;
  }
}

uint64_t LiveTf::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

uint64_t LiveTf::refusedCount() const {
  std::lock_guard lock(mutex_);
  return refusedCount_;
}

std::vector<std::string> LiveTf::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

std::vector<std::string> LiveTf::frames() const {
  std::lock_guard lock(mutex_);
  return buffer_.frames();
}

void LiveTf::waitForMore(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mutex_);
  const uint64_t seen = generation_;
  arrived_.wait_until(lock, until, [&] { return generation_ != seen; });
}

void LiveTf::wakeAll() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  arrived_.notify_all();
}

}  // namespace voxen_ros

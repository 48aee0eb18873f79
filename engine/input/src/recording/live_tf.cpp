// LiveTf (voxen/input/live_tf.hpp): a stream's tf in the engine's buffer, pruned as it grows.
#include "voxen/input/live_tf.hpp"

#include <algorithm>
#include <climits>

#include "voxen/host/error.hpp"

namespace voxen::detail {

void LiveTf::addLocked(const ros::TransformStamped& t, bool isStatic) {
  try {
    buffer_.add(t, isStatic);
  } catch (const Error& e) {
    ++refusedCount_;
    if (refusals_.size() < 16) refusals_.push_back(t.childFrame + " in " + t.parentFrame + ": " + e.what());
    return;
  }
  if (isStatic) statics_[t.childFrame] = t;
  else moving_.push_back(t);
}

void LiveTf::add(const std::vector<ros::TransformStamped>& transforms, bool isStatic) {
  {
    std::lock_guard lock(mutex_);
    for (ros::TransformStamped t : transforms) {
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
  std::deque<ros::TransformStamped> moving;
  for (ros::TransformStamped& t : moving_)
    if (t.stampNs >= keepFrom) moving.push_back(std::move(t));
  buffer_ = TfBuffer();
  moving_.clear();
  for (const auto& [child, t] : statics_) buffer_.add(t, true);
  for (const ros::TransformStamped& t : moving) addLocked(t, false);
}

std::optional<TfBuffer::Chain> LiveTf::chain(const std::string& fixedFrame, const std::string& sensorFrame, std::string& why) {
  std::lock_guard lock(mutex_);
  const std::string sensor = frameName(sensorFrame), fixed = frameName(fixedFrame);
  auto known = chains_.find({fixed, sensor});
  if (known != chains_.end() && known->second.first == generation_) return known->second.second;
  try {
    TfBuffer::Chain chain = buffer_.chain(fixed.empty() ? buffer_.rootOf(sensor) : fixed, sensor);
    chains_.insert_or_assign({fixed, sensor}, std::make_pair(generation_, chain));
    return chain;
  } catch (const Error& e) {
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

}  // namespace voxen::detail

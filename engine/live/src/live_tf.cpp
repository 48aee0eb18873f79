// LiveTf (live_tf.hpp): a stream's tf, kept for a while, and chains rebuilt on demand.
#include "live_tf.hpp"

#include <algorithm>

#include "voxen/host/error.hpp"

namespace voxen::live::detail {

void LiveTf::add(std::vector<ros::TransformStamped> transforms, bool isStatic) {
  {
    std::lock_guard lock(mutex_);
    for (ros::TransformStamped& t : transforms) {
      ++transforms_;
      t.parentFrame = voxen::detail::frameName(t.parentFrame);
      t.childFrame = voxen::detail::frameName(t.childFrame);
      if (isStatic) {
        statics_[t.childFrame] = std::move(t);
      } else {
        newestStampNs_ = std::max(newestStampNs_, t.stampNs);
        moving_.push_back(std::move(t));
      }
    }
    // Forget moving transforms older than the window (by stamp, against the newest seen).
    const int64_t keepNs = int64_t(keepSeconds_ * 1e9);
    while (!moving_.empty() && moving_.front().stampNs < newestStampNs_ - keepNs) moving_.pop_front();
    ++version_;
  }
  arrived_.notify_all();
}

void LiveTf::rebuild() {
  buffer_ = TfBuffer();
  chains_.clear();
  // A transform TfBuffer refuses (a second parent, a non-finite value, a cycle) is dropped for
  // good and counted; the rest still pose the clouds.
  auto addChecked = [this](const ros::TransformStamped& t, bool isStatic) {
    try {
      buffer_.add(t, isStatic);
      return true;
    } catch (const Error& e) {
      ++refused_;
      if (firstRefusal_.empty()) firstRefusal_ = std::string("tf ") + t.parentFrame + " -> " + t.childFrame + ": " + e.what();
      return false;
    }
  };
  for (auto it = statics_.begin(); it != statics_.end();) it = addChecked(it->second, true) ? std::next(it) : statics_.erase(it);
  std::erase_if(moving_, [&](const ros::TransformStamped& t) { return !addChecked(t, false); });
  builtVersion_ = version_;
}

std::optional<TfBuffer::Chain> LiveTf::chain(const std::string& fixed, const std::string& sensor, double until,
                                             std::string& why) {
  std::lock_guard lock(mutex_);
  const auto key = std::make_pair(fixed, sensor);
  auto known = chains_.find(key);
  if (known != chains_.end() && known->second.end() >= until) return known->second;
  if (builtVersion_ == version_ && known != chains_.end()) return known->second;  // nothing newer to build from
  if (builtVersion_ != version_) rebuild();
  try {
    const std::string root = fixed.empty() ? buffer_.rootOf(sensor) : fixed;
    TfBuffer::Chain chain = buffer_.chain(root, sensor);
    chains_.insert_or_assign(key, chain);
    return chain;
  } catch (const Error& e) {
    why = e.what();
    return std::nullopt;
  }
}

void LiveTf::waitForMore(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  const uint64_t seen = version_;
  arrived_.wait_until(lock, deadline, [&] { return version_ != seen || stopping_; });
}

void LiveTf::wake() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  arrived_.notify_all();
}

uint64_t LiveTf::transforms() const {
  std::lock_guard lock(mutex_);
  return transforms_;
}

uint64_t LiveTf::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

std::string LiveTf::firstRefusal() const {
  std::lock_guard lock(mutex_);
  return firstRefusal_;
}

std::vector<std::string> LiveTf::frames() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [child, t] : statics_) out.push_back(child), out.push_back(t.parentFrame);
  for (const ros::TransformStamped& t : moving_) out.push_back(t.childFrame), out.push_back(t.parentFrame);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace voxen::live::detail

#pragma once
// The clouds between the ROS callbacks and the mapping thread: whole messages in arrival
// order, at most `capacity` of them. A cloud that arrives at a full queue is dropped whole
// (never half a cloud) and counted; the mapping thread takes them in order.
//
// Threads: push() from any thread (the ROS callbacks), pop() from the mapping thread; one
// mutex. close() wakes a waiting pop() for shutdown.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "engine_bridge.hpp"

namespace voxen_ros {

struct QueuedCloud {
  CloudMessage msg;
  uint64_t index = 0;  // the cloud's number on the topic, from 0 (drops included)
  std::chrono::steady_clock::time_point arrived;
};

class CloudQueue {
 public:
  explicit CloudQueue(size_t capacity) : capacity_(capacity) {}

  // False (and counted in dropped()) when the queue is full or closed.
  bool push(CloudMessage msg) {
    {
      std::lock_guard lock(mutex_);
      const uint64_t index = received_++;
      if (closed_ || queue_.size() >= capacity_) {
        ++dropped_;
        return false;
      }
      queue_.push_back({std::move(msg), index, std::chrono::steady_clock::now()});
    }
    ready_.notify_one();
    return true;
  }

  // The oldest cloud, waiting until `until` at most; nullopt when none came or the queue closed.
  std::optional<QueuedCloud> pop(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mutex_);
    ready_.wait_until(lock, until, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    QueuedCloud c = std::move(queue_.front());
    queue_.pop_front();
    return c;
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  uint64_t received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  uint64_t dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
  }
  size_t size() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

 private:
  size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<QueuedCloud> queue_;
  uint64_t received_ = 0, dropped_ = 0;
  bool closed_ = false;
};

}  // namespace voxen_ros

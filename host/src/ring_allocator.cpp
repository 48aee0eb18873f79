#include "voxen/host/ring_allocator.hpp"

#include <string>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {
uint64_t alignUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }
}  // namespace

RingAllocator::RingAllocator(uint64_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw Error("staging ring capacity must be > 0");
}

std::optional<uint64_t> RingAllocator::place(uint64_t begin, uint64_t start, uint64_t size, uint64_t tag) {
  live_.push_back({begin, start + size, tag});
  used_ += start + size - begin;
  head_ = start + size == capacity_ ? 0 : start + size;
  return start;
}

std::optional<uint64_t> RingAllocator::allocate(uint64_t size, uint64_t alignment, uint64_t tag) {
  if (size > capacity_)
    throw Error("staging allocation of " + std::to_string(size) + " bytes exceeds the ring's " +
                std::to_string(capacity_) + " bytes");
  if (!live_.empty() && tag < live_.back().tag) throw Error("staging ring tags must not decrease");
  if (alignment == 0) alignment = 1;
  if (live_.empty()) {
    head_ = 0;
    return place(0, 0, size, tag);
  }
  const uint64_t tail = live_.front().begin;
  const uint64_t start = alignUp(head_, alignment);
  if (head_ > tail || (head_ == tail && used_ == 0)) {
    // Free space is [head, capacity) followed by [0, tail).
    if (start + size <= capacity_) return place(head_, start, size, tag);
    if (size <= tail) {
      // Skip the end of the ring: a padding span that returns with this allocation.
      live_.push_back({head_, capacity_, tag});
      used_ += capacity_ - head_;
      return place(0, 0, size, tag);
    }
    return std::nullopt;
  }
  if (head_ < tail && start + size <= tail) return place(head_, start, size, tag);
  return std::nullopt;  // head == tail with live spans: full
}

void RingAllocator::release(uint64_t completedTag) {
  while (!live_.empty() && live_.front().tag <= completedTag) {
    used_ -= live_.front().end - live_.front().begin;
    live_.pop_front();
  }
  if (live_.empty()) head_ = 0;
}

}  // namespace voxen

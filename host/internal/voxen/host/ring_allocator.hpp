#pragma once
// Space management of the staging ring, separate from Vulkan so that wrap-around is
// tested exhaustively. Every allocation carries the timeline value of the submission that
// uses it; space returns only when that value has completed, so the host never overwrites
// bytes the GPU has yet to read or write.
#include <cstdint>
#include <deque>
#include <optional>

namespace voxen {

class RingAllocator {
 public:
  explicit RingAllocator(uint64_t capacity);

  // Offset of `size` bytes aligned to `alignment`, or nullopt while the ring is too full.
  // Tags must not decrease from one call to the next. Throws when size > capacity.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment, uint64_t tag);
  // Returns the space of every allocation whose tag is <= completedTag.
  void release(uint64_t completedTag);

  bool empty() const { return live_.empty(); }
  uint64_t oldestTag() const { return live_.empty() ? 0 : live_.front().tag; }
  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }

 private:
  struct Span {
    uint64_t begin, end, tag;
  };
  std::optional<uint64_t> place(uint64_t begin, uint64_t start, uint64_t size, uint64_t tag);

  uint64_t capacity_;
  uint64_t head_ = 0;
  uint64_t used_ = 0;
  std::deque<Span> live_;
};

}  // namespace voxen

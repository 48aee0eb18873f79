#include "voxen/host/streamed_input.hpp"

#include <algorithm>
#include <cstring>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

StreamedInput::StreamedInput(Scheduler& scheduler, std::string name, VkDeviceSize initialBytes, uint32_t copies, Path path)
    : scheduler_(scheduler), name_(std::move(name)), allowDirect_(path == Path::Auto) {
  if (copies == 0) throw Error("streamed input '" + name_ + "' needs at least one buffer");
  copies_.resize(copies);
  for (uint32_t i = 0; i < copies; ++i)
    copies_[i].buffer = Buffer(scheduler.device(), name_ + " " + std::to_string(i), std::max<VkDeviceSize>(initialBytes, 256));
  current_ = copies - 1;  // the first write() moves to buffer 0
}

bool StreamedInput::direct() const { return allowDirect_ && copies_.front().buffer.mapped() != nullptr; }

BufferRange StreamedInput::write(const void* data, size_t bytes) {
  std::byte* destination = begin(bytes);
  if (bytes) std::memcpy(destination, data, bytes);
  return end(bytes);
}

// A buffer for the current copy of at least `capacity` bytes, half again as large as the old
// one at least, so that slowly growing inputs do not reallocate every batch.
Buffer StreamedInput::largerBuffer(const Copy& copy, VkDeviceSize capacity) const {
  return Buffer(scheduler_.device(), name_ + " " + std::to_string(current_),
                std::max<VkDeviceSize>(capacity, copy.buffer.size() + copy.buffer.size() / 2));
}

std::byte* StreamedInput::begin(size_t capacity) {
  if (open_) throw Error("streamed input '" + name_ + "': begin() twice without end()");
  current_ = (current_ + 1) % uint32_t(copies_.size());
  Copy& copy = copies_[current_];
  if (copy.buffer.size() < capacity) {
    // The old buffer is freed once the batches reading it complete (Buffer's deferred release).
    copy.buffer = largerBuffer(copy, capacity);
    copy.readBy = 0;
  }
  open_ = true;
  capacity_ = capacity;
  if (allowDirect_ && copy.buffer.mapped()) {
    // The batch that last read this buffer must be done before the host overwrites it.
    if (copy.readBy > 0) scheduler_.wait(copy.readBy);
    return copy.buffer.mapped();
  }
  host_.resize(std::max(host_.size(), capacity));
  return host_.data();
}

std::byte* StreamedInput::grow(size_t capacity, size_t keep) {
  if (!open_) throw Error("streamed input '" + name_ + "': grow() without begin()");
  if (keep > capacity_)
    throw Error("streamed input '" + name_ + "': grow() keeps " + std::to_string(keep) + " bytes of the " +
                std::to_string(capacity_) + " begun");
  Copy& copy = copies_[current_];
  capacity_ = std::max(capacity_, capacity);
  const bool direct = allowDirect_ && copy.buffer.mapped();
  if (copy.buffer.size() < capacity_) {
    // begin() waited for the batches reading this copy, so the old buffer is the host's
    // alone: what was written into it is carried over and it is released at once.
    Buffer grown = largerBuffer(copy, capacity_);
    if (direct) {
      if (!grown.mapped()) throw Error("streamed input '" + name_ + "': a grown buffer is not host-visible like the first");
      if (keep) std::memcpy(grown.mapped(), copy.buffer.mapped(), keep);
    }
    copy.buffer = std::move(grown);
    copy.readBy = 0;
  }
  if (direct) return copy.buffer.mapped();
  host_.resize(std::max(host_.size(), capacity_));  // keeps what was written
  return host_.data();
}

BufferRange StreamedInput::end(size_t bytes) {
  if (!open_) throw Error("streamed input '" + name_ + "': end() without begin()");
  open_ = false;
  Copy& copy = copies_[current_];
  if (bytes > capacity_)
    throw Error("streamed input '" + name_ + "': " + std::to_string(bytes) + " bytes written past the " +
                std::to_string(capacity_) + " begun");
  const BufferRange range = copy.buffer.range(0, std::max<VkDeviceSize>(bytes, 4));
  if (bytes && !(allowDirect_ && copy.buffer.mapped())) scheduler_.upload(range, host_.data(), bytes);
  return range;
}

void StreamedInput::submitted(uint64_t timelineValue) { submitted(current_, timelineValue); }

void StreamedInput::submitted(uint32_t copy, uint64_t timelineValue) {
  if (copy >= copies_.size()) throw Error("streamed input '" + name_ + "': no copy " + std::to_string(copy));
  copies_[copy].readBy = std::max(copies_[copy].readBy, timelineValue);
}

}  // namespace voxen

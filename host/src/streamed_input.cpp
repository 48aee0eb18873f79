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
  current_ = (current_ + 1) % uint32_t(copies_.size());
  Copy& copy = copies_[current_];
  if (copy.buffer.size() < bytes) {
    // Grows by half again so that slowly growing inputs do not reallocate every batch; the
    // old buffer is freed once the batches reading it complete (Buffer's deferred release).
    copy.buffer = Buffer(scheduler_.device(), name_ + " " + std::to_string(current_),
                         std::max<VkDeviceSize>(bytes, copy.buffer.size() + copy.buffer.size() / 2));
    copy.readBy = 0;
  }
  const BufferRange range = copy.buffer.range(0, std::max<VkDeviceSize>(bytes, 4));
  if (bytes == 0) return range;
  if (allowDirect_ && copy.buffer.mapped()) {
    // The batch that last read this buffer must be done before the host overwrites it.
    if (copy.readBy > 0) scheduler_.wait(copy.readBy);
    std::memcpy(copy.buffer.mapped(), data, bytes);
  } else {
    scheduler_.upload(range, data, bytes);
  }
  return range;
}

void StreamedInput::submitted(uint64_t timelineValue) { copies_[current_].readBy = timelineValue; }

}  // namespace voxen

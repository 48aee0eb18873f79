#pragma once
// A buffer the host refills every batch (rays, work lists): one buffer per batch in flight,
// used in turn. Where device memory is host-visible and coherent (unified memory: lavapipe,
// integrated and Apple GPUs; discrete GPUs with resizable BAR) the host writes straight
// into it, so the data is copied once instead of three times (into the staging ring, then
// by the GPU's copy engine, which on lavapipe is a memcpy on the queue thread while the
// compute threads wait). Elsewhere it goes through the scheduler's staging ring.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/host/buffer.hpp"

namespace voxen {

class Scheduler;

class StreamedInput {
 public:
  enum class Path { Auto, StagingRing };  // StagingRing: never write directly (for tests)
  StreamedInput(Scheduler& scheduler, std::string name, VkDeviceSize initialBytes, uint32_t copies = 3,
                Path path = Path::Auto);

  // Writes `bytes` for the batch being recorded and returns where the passes find them. The
  // buffer handed out is not written again until the batch given to submitted() completed.
  BufferRange write(const void* data, size_t bytes);
  // The same in two steps, for a producer that builds the data in place: begin() returns
  // `capacity` bytes to fill (the device buffer itself where writes are direct, else host
  // memory), end() says how many were filled and returns where the passes find them.
  std::byte* begin(size_t capacity);
  // Between begin() and end(): room for `capacity` bytes, the first `keep` bytes written so
  // far carried over; returns where to go on writing (a producer that does not know its
  // size up front starts small). Pointers from begin() are stale afterwards.
  std::byte* grow(size_t capacity, size_t keep);
  BufferRange end(size_t bytes);
  // The timeline value of the batch that reads what the last write() returned.
  void submitted(uint64_t timelineValue);
  // For a consumer that reads a write after later ones began (a pipeline): which copy the
  // last write went to, and the timeline value of a batch that reads copy `copy`.
  uint32_t currentCopy() const { return current_; }
  void submitted(uint32_t copy, uint64_t timelineValue);

  // Whether writes skip the staging ring (for tests and reports).
  bool direct() const;

 private:
  struct Copy {
    Buffer buffer;
    uint64_t readBy = 0;  // timeline value of the last batch that reads it
  };
  Buffer largerBuffer(const Copy& copy, VkDeviceSize capacity) const;
  Scheduler& scheduler_;
  std::string name_;
  std::vector<Copy> copies_;
  uint32_t current_ = 0;
  bool allowDirect_ = true;
  bool open_ = false;              // between begin() and end()
  size_t capacity_ = 0;            // what begin() handed out
  std::vector<std::byte> host_;    // begin()'s memory on the staging path
};

}  // namespace voxen

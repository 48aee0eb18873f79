#pragma once
// An exclusive prefix sum of uint32 values on the GPU (shaders/primitives/exclusive_scan.comp).
#include <cstdint>
#include <memory>

#include "voxen/host/buffer.hpp"

namespace voxen {

class Kernel;
class Scheduler;

class ExclusiveScan {
 public:
  // The most items one record() scans: one workgroup walks the array, and lavapipe stops a
  // loop after 65,535 iterations per invocation.
  static constexpr uint32_t kMaxItems = 1u << 22;

  explicit ExclusiveScan(Scheduler& scheduler);

  // Records into the scheduler's current batch (does not submit):
  //   dst[i] = src[0] + ... + src[i - 1] for i < count (uint32, wrapping),
  // and, when `total` is given, total[0] = the sum of all `count` items (written even when
  // count is 0). src and dst are uint32 arrays of at least `count` items; they may be the
  // same range (in place) but must not otherwise overlap. Throws voxen::Error when count
  // exceeds kMaxItems or a range is too small.
  void record(const BufferRange& src, const BufferRange& dst, uint32_t count, const BufferRange* total = nullptr);

 private:
  Scheduler& scheduler_;
  std::shared_ptr<Kernel> kernel_;
};

}  // namespace voxen

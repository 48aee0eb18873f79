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
  // The most items one record() scans. Up to kSingleMaxItems one workgroup walks the array
  // (one dispatch); above, tiles of 4096 items (shaders/primitives/scan_tiles.comp) sum
  // their items, the tile sums are scanned (by this same record, recursively) and each tile
  // scans its items plus its tile's offset: three dispatches and per-batch scratch
  // (Scheduler::transient) of 4 bytes per tile. Every invocation's loops stay short.
  static constexpr uint32_t kMaxItems = 1u << 30;
  static constexpr uint32_t kSingleMaxItems = 1u << 16;

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
  std::shared_ptr<Kernel> kernel_, reduceKernel_, applyKernel_;
};

}  // namespace voxen

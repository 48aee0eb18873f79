#pragma once
// Order-preserving stream compaction on the GPU (shaders/primitives/scan_tiles.comp): the
// indices of the nonzero flags, their number, and a dispatch command sized to that number,
// so later work over the kept items is dispatched indirectly without a readback.
#include <cstdint>
#include <memory>

#include "voxen/host/buffer.hpp"
#include "voxen/primitives/exclusive_scan.hpp"

namespace voxen {

class Kernel;
class Scheduler;

class StreamCompaction {
 public:
  static constexpr uint32_t kMaxItems = ExclusiveScan::kMaxItems;

  explicit StreamCompaction(Scheduler& scheduler);

  // Records into the scheduler's current batch (does not submit), for `count` uint32 flags
  // (nonzero = keep):
  //   indices[0 .. total) = the indices i of the kept flags, increasing;
  //   total[0]            = the number kept;
  //   dispatchArgs        = VkDispatchIndirectCommand {ceil(total / groupSize), 1, 1} (folded
  //                         into y past 65,535 workgroups: index with voxenThreadIndex()) when
  //                         given (12 bytes, 4-byte aligned offset): for
  //                         Scheduler::dispatchIndirect over the kept items with workgroups
  //                         of groupSize invocations.
  // indices holds at least `count` uint32 (entries from total on are left as they were);
  // flags and indices must not overlap. All outputs are written also when count is 0.
  // Three passes: per-tile counts of 4096 flags, an ExclusiveScan of the counts (with the
  // total), and an order-preserving scatter that also writes the command. Throws
  // voxen::Error for count > kMaxItems, groupSize 0, a misaligned dispatchArgs or a range
  // that is too small.
  void record(const BufferRange& flags, const BufferRange& indices, uint32_t count, const BufferRange& total,
              const BufferRange* dispatchArgs = nullptr, uint32_t groupSize = 64);

 private:
  Scheduler& scheduler_;
  std::shared_ptr<Kernel> countKernel_, scatterKernel_;
  ExclusiveScan scan_;
};

}  // namespace voxen

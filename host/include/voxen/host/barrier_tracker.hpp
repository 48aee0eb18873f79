#pragma once
// Derives pipeline barriers from what each command declares it reads and writes. Module
// code never writes a barrier: the scheduler asks this tracker, per command, which earlier
// writes must be made visible (read-after-write, write-after-write) and which earlier
// reads must finish (write-after-read), and emits one global memory barrier covering them.
#include <volk.h>

#include <cstdint>
#include <span>
#include <unordered_map>

namespace voxen {

struct ResourceAccess {
  uint64_t resource = 0;  // a VkBuffer handle
  bool read = false;
  bool write = false;
};

struct Barrier {
  VkPipelineStageFlags srcStages = 0;
  VkPipelineStageFlags dstStages = 0;
  VkAccessFlags srcAccess = 0;
  VkAccessFlags dstAccess = 0;
  bool empty() const { return srcStages == 0; }
};

class BarrierTracker {
 public:
  // The barrier needed before a command in `stage` that makes `accesses` (empty if none);
  // records the command so later ones are checked against it.
  Barrier record(VkPipelineStageFlags stage, std::span<const ResourceAccess> accesses);
  // Whether a command recorded since the last reset touched `resource`.
  bool touched(uint64_t resource) const { return states_.count(resource) != 0; }
  // Forget everything: the next submission waits on the previous one in full.
  void reset() { states_.clear(); }

 private:
  struct State {
    VkPipelineStageFlags writeStage = 0;  // last write not yet known complete
    VkAccessFlags writeAccess = 0;
    VkPipelineStageFlags visibleTo = 0;   // stages the last write is visible to
    VkPipelineStageFlags readStages = 0;  // reads since the last write
    VkPipelineStageFlags readsOrderedBefore = 0;  // stages ordered after all those reads
  };
  std::unordered_map<uint64_t, State> states_;
};

VkAccessFlags readAccessOf(VkPipelineStageFlags stage);
VkAccessFlags writeAccessOf(VkPipelineStageFlags stage);

}  // namespace voxen

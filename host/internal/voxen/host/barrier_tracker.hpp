#pragma once
// Derives pipeline barriers from what each command declares it reads and writes. Module
// code never writes a barrier: the scheduler asks this tracker, per command, which earlier
// writes must be made visible (read-after-write, write-after-write) and which earlier
// reads must finish (write-after-read), and emits one global memory barrier covering them.
//
// Hazards are tracked per byte range: each buffer keeps a sorted list of disjoint segments,
// each with the state of its last write and the reads since. Commands on disjoint ranges of
// one buffer never wait for each other. Neighbouring segments whose states became equal
// (after a barrier, typically) are merged, so a buffer holds few segments however many
// commands touched it, and recording stays proportional to the segments a command
// overlaps, not to the history.
#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "voxen/host/recorded_command.hpp"

namespace voxen {

class BarrierTracker {
 public:
  // The barrier needed before a command in `stage` that makes `accesses` (empty if none);
  // records the command so later ones are checked against it.
  Barrier record(VkPipelineStageFlags stage, std::span<const ResourceAccess> accesses);
  // Whether a command recorded since the last reset touched `resource`.
  bool touched(uint64_t resource) const { return buffers_.count(resource) != 0; }
  // Forget everything: the next submission waits on the previous one in full.
  void reset() { buffers_.clear(); }
  // Segments held for `resource` (for tests: merging keeps this small).
  size_t segmentCount(uint64_t resource) const;

 private:
  struct State {
    VkPipelineStageFlags writeStage = 0;  // last write not yet known complete
    VkAccessFlags writeAccess = 0;
    VkPipelineStageFlags visibleTo = 0;   // stages the last write is visible to
    VkPipelineStageFlags readStages = 0;  // reads since the last write
    VkPipelineStageFlags readsOrderedBefore = 0;  // stages ordered after all those reads
    bool operator==(const State&) const = default;
  };
  struct Segment {
    uint64_t begin = 0, end = 0;  // [begin, end) in bytes
    State state;
  };
  using Segments = std::vector<Segment>;  // sorted by begin, disjoint

  void noteAccess(Segments& segments, const ResourceAccess& access, VkPipelineStageFlags stage);
  void applyBarrier(const Barrier& barrier);
  static void appendMerged(Segments& out, const Segment& segment);

  std::unordered_map<uint64_t, Segments> buffers_;
  // Reused from command to command, so recording does not allocate.
  std::vector<Segments*> targets_;  // the list of each access of the command being recorded
  Segments scratch_;
};

}  // namespace voxen

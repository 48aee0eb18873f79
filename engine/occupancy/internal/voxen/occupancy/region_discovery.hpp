#pragma once
// Region discovery on the GPU (shaders/occupancy/region_discover.comp, region_list.comp):
// the distinct regions a batch of rays touches, found without the host walking any ray.
// One pass walks every ray at region resolution into a batch-level hash set and writes each
// ray's segments and region list (as set entries); a second lists the set's keys; the host
// reads back only that list (hundreds of regions per batch) and sorts it, so the result
// does not depend on the order in which the GPU inserted them. A set that overflows is
// doubled and the batch discovered again, so no region is ever lost. The list can also
// resolve residency on the GPU (recordResolving, discovery_shared.h). Each of the two copies
// has its own list, so a batch's list stays readable while the next batch is discovered.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

class Kernel;
class Scheduler;

struct DiscoveredRegion {
  RegionKey key;
  uint32_t entry = 0;  // its entry in the set: what the rays' region lists hold
  // Found resident by the GPU's lookup when the discovery resolved residency (its batch's
  // passes in the same submission updated it); false otherwise.
  bool resolved = false;
  bool operator<(const DiscoveredRegion& o) const { return key < o.key; }
};

class RegionDiscovery {
 public:
  // A discovery submitted and not yet collected: what collect() needs to read its list, or
  // to run it again when its set overflowed.
  struct Ticket {
    Future<uint32_t> list;  // the header and the first `listed` entries
    uint32_t listed = 0;
    uint32_t setEntries = 0;  // the set's size when it was recorded
    uint32_t copy = 0;      // which region lists and segments it writes
    BufferRange rays;
    uint32_t rayCount = 0;
    RegionKey origin;
    int32_t regionSize = 0;
    uint64_t regionEntries = 0, segmentCount = 0;
    // The batch's part offsets (gpu::RayPartOffsets), added to the records by the first
    // recording only (partCount is 0 afterwards: a second run finds them added).
    BufferRange parts;
    uint32_t partCount = 0;
    // Whether the discovery looks residency up on the GPU (discovery_shared.h); a run again
    // after an overflow never does.
    bool resolving = false;
    // The set overflowed while resolving: the GPU raised the defer flag (clearDeferFlag).
    bool raisedDeferFlag = false;
  };

  // The region cache's hash table, for a discovery that resolves residency.
  struct Residency {
    BufferRange table;
    uint32_t mask = 0, maxProbe = 0;
  };

  // maxRays: rays per batch at most (the first maxRays words of the ray slots are each
  // ray's sample region).
  RegionDiscovery(Scheduler& scheduler, uint32_t maxRays);
  ~RegionDiscovery();

  // Records the discovery of rays[0, rayCount) (GpuRay records whose slotBase and
  // segmentBase the host set: region lists from maxRays on, back to back, regionEntries
  // words in all; segments back to back, segmentCount pairs in all) into the scheduler's
  // current batch and submits it, without waiting. `origin` is the region every key of the
  // batch lies within kDiscoverySpan of. Batches alternate between two copies of the
  // region lists and segments, so one batch can be discovered while the previous one is
  // integrated. With `partCount` part offsets (batch_assembly_shared.h), the records' offsets
  // count from their chunk's first record, and discovery adds their part's (once).
  Ticket submit(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin, int32_t regionSize,
                uint64_t regionEntries, uint64_t segmentCount, const BufferRange& parts = {}, uint32_t partCount = 0);
  // submit(), resolving residency against `residency` (the set entries' slot table is then
  // entrySlots()), and without submitting: the caller records the batch's passes after it
  // and submits them together.
  Ticket recordResolving(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin, int32_t regionSize,
                         uint64_t regionEntries, uint64_t segmentCount, const BufferRange& parts, uint32_t partCount,
                         const Residency& residency);
  // Waits for a submitted discovery and returns its regions sorted by key (running it
  // again with a doubled set if the set overflowed). Tickets are collected in the order
  // they were submitted.
  std::vector<DiscoveredRegion> collect(Ticket& ticket);
  // submit() and collect() at once.
  std::vector<DiscoveredRegion> discover(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin,
                                         int32_t regionSize, uint64_t regionEntries, uint64_t segmentCount);

  // What the occupancy passes read for a collected ticket's copy, valid until that copy is
  // submitted again.
  const Buffer& raySlots(uint32_t copy) const { return copies_[copy].raySlots; }
  const Buffer& segments(uint32_t copy) const { return copies_[copy].segments; }
  uint32_t lastCopy() const { return next_ ^ 1u; }  // the copy of the last submit()
  uint32_t setEntries() const { return setEntries_; }
  // Set entries' cache slots (gpu::kNotInChunk where a region belongs to another chunk),
  // uploaded for the passes recorded next; one uint per set entry.
  BufferRange publishSlots(std::span<const uint32_t> slotOfEntry);
  // The slot table a resolving discovery writes (the same buffer publishSlots uploads to).
  BufferRange entrySlots() const { return entrySlots_.range(); }
  // Lowers the defer flag a resolving discovery raised (recorded into the current batch):
  // only once every batch recorded since it was raised has been integrated.
  void clearDeferFlag();
  // Times a set overflowed and was doubled (for tests and reports).
  uint64_t setGrowths() const { return growths_; }

 private:
  struct Copy {
    Buffer raySlots, segments, list;
  };
  Ticket prepare(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin, int32_t regionSize,
                 uint64_t regionEntries, uint64_t segmentCount, const BufferRange& parts, uint32_t partCount);
  void record(Ticket& ticket, const Residency* residency = nullptr);
  void ensure(Buffer& buffer, const char* name, uint64_t bytes);
  void resizeSet(uint32_t entries);

  Scheduler& scheduler_;
  uint32_t maxRays_;
  std::shared_ptr<Kernel> discoverKernel_, listKernel_;
  Buffer set_, entrySlots_, deferFlag_;
  Copy copies_[2];
  uint32_t next_ = 0;  // the copy the next submit() writes
  uint32_t setEntries_ = 0;
  uint32_t lastCount_ = 0;  // regions of the last collected batch: sizes the first readback
  uint64_t growths_ = 0;
};

}  // namespace voxen

#pragma once
// Region discovery on the GPU (shaders/occupancy/region_discover.comp, region_list.comp):
// the distinct regions a batch of rays touches, found without the host walking any ray.
// One pass walks every ray at region resolution into a batch-level hash set and writes each
// ray's segments and region list (as set entries); a second lists the set's keys; the host
// reads back only that list (hundreds of regions per batch) and sorts it, so the result
// does not depend on the order in which the GPU inserted them. A set that overflows is
// doubled and the batch discovered again, so no region is ever lost.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

class Kernel;
class Scheduler;

struct DiscoveredRegion {
  RegionKey key;
  uint32_t entry = 0;  // its entry in the set: what the rays' region lists hold
  bool operator<(const DiscoveredRegion& o) const { return key < o.key; }
};

class RegionDiscovery {
 public:
  // maxRays: rays per batch at most (the first maxRays words of the ray slots are each
  // ray's sample region).
  RegionDiscovery(Scheduler& scheduler, uint32_t maxRays);
  ~RegionDiscovery();

  // Discovers the regions of rays[0, rayCount) (GpuRay records whose slotBase and
  // segmentBase the host set: region lists from maxRays on, back to back, regionEntries
  // words in all; segments back to back, segmentCount pairs in all). `origin` is the
  // region every key of the batch lies within kDiscoverySpan of. Records into the
  // scheduler's current batch, submits, and waits for the list: the regions sorted by key.
  std::vector<DiscoveredRegion> discover(const BufferRange& rays, uint32_t rayCount, const RegionKey& origin,
                                         int32_t regionSize, uint64_t regionEntries, uint64_t segmentCount);

  // What the occupancy passes read, valid for the last discover() until the next.
  const Buffer& raySlots() const { return raySlots_; }
  const Buffer& segments() const { return segments_; }
  uint32_t setEntries() const { return setEntries_; }
  // Set entries' cache slots (gpu::kNotInChunk where a region belongs to another chunk),
  // uploaded for the passes recorded next; one uint per set entry.
  BufferRange publishSlots(std::span<const uint32_t> slotOfEntry);
  // Times a set overflowed and was doubled (for tests and reports).
  uint64_t setGrowths() const { return growths_; }

 private:
  void ensure(Buffer& buffer, const char* name, uint64_t bytes);
  void resizeSet(uint32_t entries);

  Scheduler& scheduler_;
  uint32_t maxRays_;
  std::shared_ptr<Kernel> discoverKernel_, listKernel_;
  Buffer set_, list_, raySlots_, segments_, entrySlots_;
  uint32_t setEntries_ = 0;
  uint32_t lastCount_ = 0;  // regions of the previous batch: sizes the first readback
  uint64_t growths_ = 0;
};

}  // namespace voxen

#pragma once
// A fixed pool of region slots in persistent device memory. Per batch the integrator asks
// for the regions its rays touch; the cache makes them resident, evicting least-recently
// used regions back to the host map (their contents are read back first: no update is ever
// lost), and keeps a hash table (region key -> slot) on the GPU for the shaders' lookups.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "voxen/map/map.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

struct RegionCacheStats {
  uint64_t loads = 0;       // regions copied or initialised into a slot
  uint64_t evictions = 0;   // regions written back to the host map to free a slot
  uint64_t tableUploads = 0;
};

class RegionCache {
 public:
  // `bytes` of device memory for the slots (at least one region must fit).
  RegionCache(Scheduler& scheduler, OccupancyMap& map, uint64_t bytes);
  ~RegionCache();

  size_t slotCount() const { return slots_.size(); }
  static uint64_t bytesPerRegion(const OccupancyMap& map);

  // Makes every key resident for the batch stamped `batch` (keys.size() <= slotCount()).
  void makeResident(const std::vector<RegionKey>& keys, uint64_t batch);
  // Slot of a resident region (the key must be resident).
  uint32_t slotOf(const RegionKey& key) const { return resident_.at(key); }
  // Copies every resident region back into the host map (they stay resident).
  void syncToMap();

  // What the shaders need.
  VkDeviceAddress occupancyAddress() const { return occupancy_.address(); }
  VkDeviceAddress meanAddress() const { return mean_.handle() ? mean_.address() : 0; }
  VkDeviceAddress traversalAddress() const { return traversal_.handle() ? traversal_.address() : 0; }
  VkDeviceAddress hitMissAddress() const { return hitMiss_.handle() ? hitMiss_.address() : 0; }
  VkDeviceAddress touchAddress() const { return touch_.handle() ? touch_.address() : 0; }
  VkDeviceAddress tableAddress() const { return table_.address(); }
  uint32_t tableMask() const { return tableCapacity_ - 1; }
  uint32_t maxProbe() const { return maxProbe_; }
  // Every buffer the shaders read or write, for the passes' declarations.
  std::vector<BufferRange> poolRanges() const;
  BufferRange tableRange() const { return table_.range(); }
  const RegionCacheStats& stats() const { return stats_; }

 private:
  struct Slot {
    bool used = false;
    RegionKey key;
    uint64_t lastBatch = 0;
  };
  struct PendingEviction;
  void load(uint32_t slot, const RegionKey& key);
  void evict(uint32_t slot);
  void readBack(uint32_t slot, const RegionKey& key);
  void completeEvictions(bool wait, const RegionKey* only = nullptr);
  void uploadTable();

  Scheduler& scheduler_;
  OccupancyMap& map_;
  size_t voxels_;
  Buffer occupancy_, mean_, traversal_, hitMiss_, touch_, table_;
  uint32_t tableCapacity_ = 0;
  uint32_t maxProbe_ = 0;
  bool tableDirty_ = true;
  std::vector<Slot> slots_;
  std::unordered_map<RegionKey, uint32_t, RegionKeyHash> resident_;
  std::vector<std::unique_ptr<PendingEviction>> pending_;
  RegionCacheStats stats_;
};

// The region hash the shaders use (shaders/occupancy/map_access.glsl hashRegion).
uint32_t gpuRegionHash(const RegionKey& key);

}  // namespace voxen

#pragma once
// A fixed pool of region slots in persistent device memory. Per batch the integrator asks
// for the regions its rays touch; the cache makes them resident, evicting least-recently
// used regions back to the host map (their contents are read back first: no update is ever
// lost), and keeps a hash table (region key -> slot) on the GPU for the shaders' lookups.
// Every layer of the map's layout has one device pool (one region array per slot); the
// passes reach them through one layer table (shaders/map/layer_table.h), so the cache
// loads, evicts and reads back every layer through one loop over the layout.
#include <cstdint>
#include <memory>
#include <optional>
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
  // Whether the shaders look regions up in the cache's GPU hash table (the clearance passes
  // do; the occupancy passes find slots through region discovery and skip its upload).
  enum class GpuTable { Kept, None };
  RegionCache(Scheduler& scheduler, OccupancyMap& map, uint64_t bytes, GpuTable gpuTable = GpuTable::Kept);
  // A cache that only reads the map (the queries): evicted regions are dropped, never
  // copied back, so a const map stays untouched; syncToMap and syncAndRelease throw. It
  // keeps no GPU hash table (its reader finds slots with slotOf).
  RegionCache(Scheduler& scheduler, const OccupancyMap& map, uint64_t bytes);
  ~RegionCache();

  size_t slotCount() const { return slots_.size(); }
  static uint64_t bytesPerRegion(const OccupancyMap& map);

  // Makes every key resident for the batch stamped `batch` (keys.size() <= slotCount()).
  void makeResident(const std::vector<RegionKey>& keys, uint64_t batch);
  // Slot of a resident region (the key must be resident).
  uint32_t slotOf(const RegionKey& key) const { return resident_.at(key); }
  // One past the highest slot in use (0 when nothing is resident), and the region of every
  // slot below it (a slot not in use holds a key that means nothing): for passes that find
  // regions through the GPU hash table and number them by slot.
  uint32_t usedSlotBound() const;
  std::vector<RegionKey> slotKeys() const;
  // Stamps the resident ones among `keys` as used by batch `batch`, for the least recently
  // used eviction (makeResident stamps the keys it is given itself).
  void touch(const std::vector<RegionKey>& keys, uint64_t batch);
  // While passes whose regions the host has not learnt yet may have changed resident regions
  // (the occupancy integrator's GPU lookup), an evicted region is copied back whether or not
  // the map thinks it changed, and marked changed once it lands: its change must not be lost
  // (needsCopyBack skips regions a region source holds unchanged).
  void setUnseenChanges(bool unseen) { unseenChanges_ = unseen; }
  // Copies every resident region back into the host map (they stay resident).
  void syncToMap();
  // A read-only cache's syncAndRelease: empties it, so that the next makeResident loads
  // from the host map again (to see a map that changed). Throws on a cache that writes back.
  void release();
  // Copies every resident region back and empties the cache, so that the next
  // makeResident loads from the host map again (for a user that lets others change the
  // host map between its calls).
  void syncAndRelease();

  // What the shaders need: the layer table (pool address per layer id, 0 where absent),
  // one pool's address, and the region hash table.
  VkDeviceAddress layerTableAddress() const { return layerTable_.address(); }
  VkDeviceAddress poolAddress(LayerId id) const;
  VkDeviceAddress tableAddress() const { return table_.address(); }
  uint32_t tableMask() const { return tableCapacity_ - 1; }
  uint32_t maxProbe() const { return maxProbe_; }
  // Every pool the shaders read or write, for the passes' declarations.
  std::vector<BufferRange> poolRanges() const;
  // One layer's pool (nullopt when the map has no such layer), and the map's layers in pool
  // order; for passes that declare which layers they write (voxen/map/map_pass.hpp).
  std::optional<BufferRange> poolRange(LayerId id) const;
  std::vector<LayerId> layerIds() const;
  int32_t regionSize() const { return map_.regionSize(); }
  size_t voxelsPerRegion() const { return voxels_; }
  BufferRange layerTableRange() const { return layerTable_.range(); }
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
  void readBack(uint32_t slot, const RegionKey& key, bool markChanged = false);
  void completeEvictions(bool wait, const RegionKey* only = nullptr);
  void uploadTable();
  void dropSlots();

  Scheduler& scheduler_;
  OccupancyMap& map_;
  size_t voxels_;
  struct Pool {
    LayerId id;
    uint32_t bytesPerVoxel;
    std::optional<uint32_t> fillPattern;  // a fresh slot's value as a 4-byte fill, if it is one
    std::vector<std::byte> freshRegion;   // otherwise a region of initial values to upload
    Buffer buffer;
  };
  std::vector<Pool> pools_;  // in layout order
  Buffer layerTable_, table_;
  uint32_t tableCapacity_ = 0;
  uint32_t maxProbe_ = 0;
  bool tableDirty_ = true;
  bool gpuTable_ = true;
  bool readOnly_ = false;
  bool unseenChanges_ = false;
  std::vector<Slot> slots_;
  std::unordered_map<RegionKey, uint32_t, RegionKeyHash> resident_;
  std::vector<std::unique_ptr<PendingEviction>> pending_;
  RegionCacheStats stats_;
};

// The region hash the shaders use (shaders/occupancy/map_access.glsl hashRegion).
uint32_t gpuRegionHash(const RegionKey& key);

}  // namespace voxen

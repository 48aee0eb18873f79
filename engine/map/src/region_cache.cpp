#include "voxen/map/region_cache.hpp"

#include <algorithm>
#include <cstring>

#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

// The layer's initial value as a 4-byte pattern for vkCmdFillBuffer, when it repeats one.
std::optional<uint32_t> fillPatternOf(const LayerType& type) {
  const auto& v = type.initialValue;
  if (v.size() % 4 != 0) return std::nullopt;
  for (size_t i = 4; i < v.size(); ++i)
    if (v[i] != v[i % 4]) return std::nullopt;
  uint32_t pattern;
  std::memcpy(&pattern, v.data(), 4);
  return pattern;
}

}  // namespace

uint32_t gpuRegionHash(const RegionKey& key) {
  uint32_t h = uint32_t(key.x) * 0x9E3779B1u;
  h ^= uint32_t(key.y) * 0x85EBCA77u + (h << 6) + (h >> 2);
  h ^= uint32_t(key.z) * 0xC2B2AE3Du + (h << 6) + (h >> 2);
  return h ^ (h >> 15);
}

struct RegionCache::PendingEviction {
  RegionKey key;
  bool markChanged = false;  // the map is told it changed once it lands (setUnseenChanges)
  std::vector<Future<std::byte>> layers;  // in layout order
};

uint64_t RegionCache::bytesPerRegion(const OccupancyMap& map) {
  return map.layout().bytesPerVoxel() * map.voxelsPerRegion();
}

RegionCache::RegionCache(Scheduler& scheduler, OccupancyMap& map, uint64_t bytes, GpuTable gpuTable)
    : scheduler_(scheduler), map_(map), voxels_(map.voxelsPerRegion()), gpuTable_(gpuTable == GpuTable::Kept) {
  const uint64_t perRegion = bytesPerRegion(map);
  const uint64_t slots = bytes / perRegion;
  if (slots == 0)
    throw SettingError(SettingError::Kind::Change, "RegionCache::bytes", "the GPU region cache",
                       "GPU region cache of " + formatBytes(bytes) + " holds no region (one needs " + formatBytes(perRegion) +
                           "): raise {}",
                       formatBytes(bytes));
  if (slots * voxels_ > (1ull << 31))
    throw SettingError(SettingError::Kind::Change, "RegionCache::bytes", "the GPU region cache",
                       "GPU region cache too large: " + std::to_string(slots) + " regions of " + std::to_string(voxels_) +
                           " voxels, past 2^31 voxels; lower {}",
                       formatBytes(bytes));
  const uint64_t v = slots * voxels_;
  std::vector<VkDeviceAddress> addresses(kMaxLayers, 0);
  for (LayerId id : map.layout().ids()) {
    const LayerType& type = layerType(id);
    Pool pool{id, type.bytesPerVoxel, fillPatternOf(type), {}, {}};
    if (!pool.fillPattern) {
      pool.freshRegion.resize(voxels_ * type.bytesPerVoxel);
      for (size_t i = 0; i < voxels_; ++i)
        std::memcpy(pool.freshRegion.data() + i * type.bytesPerVoxel, type.initialValue.data(), type.bytesPerVoxel);
    }
    pool.buffer = Buffer(scheduler.device(), "region cache " + type.name, v * type.bytesPerVoxel);
    addresses[id.index()] = pool.buffer.address();
    pools_.push_back(std::move(pool));
  }
  // The pools never move: the layer table is written once.
  layerTable_ = Buffer(scheduler.device(), "region cache layer table", kMaxLayers * sizeof(VkDeviceAddress));
  scheduler.upload(layerTable_.range(), addresses.data(), addresses.size() * sizeof(VkDeviceAddress));
  tableCapacity_ = 16;
  while (tableCapacity_ < 2 * slots) tableCapacity_ *= 2;
  table_ = Buffer(scheduler.device(), "region cache table", uint64_t(tableCapacity_) * 16);
  slots_.resize(slots);
}

// The map is only read: readOnly_ keeps evict() and syncToMap() from writing into it. Its
// readers (the queries) keep their own region lookup, so no GPU table is uploaded.
RegionCache::RegionCache(Scheduler& scheduler, const OccupancyMap& map, uint64_t bytes)
    : RegionCache(scheduler, const_cast<OccupancyMap&>(map), bytes, GpuTable::None) {
  readOnly_ = true;
}

RegionCache::~RegionCache() = default;

VkDeviceAddress RegionCache::poolAddress(LayerId id) const {
  for (const Pool& pool : pools_)
    if (pool.id == id) return pool.buffer.address();
  return 0;
}

std::vector<BufferRange> RegionCache::poolRanges() const {
  std::vector<BufferRange> ranges;
  for (const Pool& pool : pools_) ranges.push_back(pool.buffer.range());
  return ranges;
}

std::optional<BufferRange> RegionCache::poolRange(LayerId id) const {
  for (const Pool& pool : pools_)
    if (pool.id == id) return pool.buffer.range();
  return std::nullopt;
}

std::vector<LayerId> RegionCache::layerIds() const {
  std::vector<LayerId> ids;
  for (const Pool& pool : pools_) ids.push_back(pool.id);
  return ids;
}

void RegionCache::readBack(uint32_t slot, const RegionKey& key, bool markChanged) {
  auto pending = std::make_unique<PendingEviction>();
  pending->key = key;
  pending->markChanged = markChanged;
  for (const Pool& pool : pools_) {
    const uint64_t bytes = voxels_ * pool.bytesPerVoxel;
    pending->layers.push_back(scheduler_.readback<std::byte>(pool.buffer.range(slot * bytes, bytes)));
  }
  pending_.push_back(std::move(pending));
}

void RegionCache::completeEvictions(bool wait, const RegionKey* only) {
  std::erase_if(pending_, [&](std::unique_ptr<PendingEviction>& p) {
    if (only && !(p->key == *only)) return false;
    if (!wait && !p->layers.front().ready()) return false;
    Region& region = map_.regionToOverwrite(p->key);
    // The GPU's updates report no class crossings of their own: they are found here, against
    // the host's copy before it is overwritten (a region made just now reads unobserved).
    VoxelClassChanges crossed;
    for (size_t i = 0; i < pools_.size(); ++i) {
      std::vector<std::byte> values = p->layers[i].get();
      if (pools_[i].id == kOccupancyLayer) {
        auto floats = [](const std::vector<std::byte>& bytes) {
          return std::span<const float>(reinterpret_cast<const float*>(bytes.data()), bytes.size() / sizeof(float));
        };
        crossed = classChanges(floats(region.layers[kOccupancyLayer]), floats(values), map_.model().thresholdValue());
      }
      region.layers[pools_[i].id] = std::move(values);
    }
    if (p->markChanged) map_.markValuesChanged(region);
    map_.markClassesChanged(region, crossed);
    return true;
  });
}

void RegionCache::evict(uint32_t slot) {
  // A region unchanged since the map was saved to its region source is not copied back:
  // the saved copy is the same (and copying would bring a paged-out region back in).
  if (!readOnly_ && (unseenChanges_ || map_.needsCopyBack(slots_[slot].key)))
    readBack(slot, slots_[slot].key, unseenChanges_);
  resident_.erase(slots_[slot].key);
  slots_[slot].used = false;
  tableDirty_ = true;
  ++stats_.evictions;
}

void RegionCache::load(uint32_t slot, const RegionKey& key) {
  // A region evicted earlier must land in the host map before it is uploaded again.
  completeEvictions(true, &key);
  const Region* region = map_.findRegion(key);
  for (const Pool& pool : pools_) {
    const uint64_t bytes = voxels_ * pool.bytesPerVoxel;
    const BufferRange range = pool.buffer.range(slot * bytes, bytes);
    if (region) {
      if (region->layers[pool.id].size() != bytes)
        throw Error("region (" + std::to_string(key.x) + "," + std::to_string(key.y) + "," + std::to_string(key.z) + ") holds " +
                    std::to_string(region->layers[pool.id].size()) + " bytes of layer '" + layerType(pool.id).name +
                    "', the map's regions need " + std::to_string(bytes));
      scheduler_.upload(range, region->layers[pool.id].data(), bytes);
    }
    else if (pool.fillPattern)
      scheduler_.fill(range, *pool.fillPattern);
    else
      scheduler_.upload(range, pool.freshRegion.data(), bytes);
  }
  slots_[slot] = Slot{true, key, 0};
  resident_[key] = slot;
  tableDirty_ = true;
  ++stats_.loads;
}

void RegionCache::makeResident(const std::vector<RegionKey>& keys, uint64_t batch) {
  if (keys.size() > slots_.size())
    throw Error("a batch needs " + std::to_string(keys.size()) + " regions but the GPU cache holds " +
                std::to_string(slots_.size()));
  completeEvictions(false);
  for (const RegionKey& key : keys)
    if (auto found = resident_.find(key); found != resident_.end()) slots_[found->second].lastBatch = batch;
  // Free slots first, then the least recently used regions this batch does not need.
  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (!slots_[i].used || slots_[i].lastBatch != batch) candidates.push_back(i);
  std::sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) {
    if (slots_[a].used != slots_[b].used) return !slots_[a].used;
    return slots_[a].lastBatch < slots_[b].lastBatch;
  });
  size_t next = 0;
  for (const RegionKey& key : keys) {
    if (resident_.count(key)) continue;
    const uint32_t slot = candidates.at(next++);
    if (slots_[slot].used) evict(slot);
    load(slot, key);
    slots_[slot].lastBatch = batch;
  }
  if (tableDirty_ && gpuTable_) uploadTable();
}

uint32_t RegionCache::usedSlotBound() const {
  uint32_t bound = uint32_t(slots_.size());
  while (bound > 0 && !slots_[bound - 1].used) --bound;
  return bound;
}

std::vector<RegionKey> RegionCache::slotKeys() const {
  std::vector<RegionKey> keys(usedSlotBound());
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = slots_[i].key;
  return keys;
}

void RegionCache::touch(const std::vector<RegionKey>& keys, uint64_t batch) {
  for (const RegionKey& key : keys)
    if (auto found = resident_.find(key); found != resident_.end()) slots_[found->second].lastBatch = batch;
}

void RegionCache::uploadTable() {
  std::vector<int32_t> entries(size_t(tableCapacity_) * 4, 0);
  for (uint32_t i = 0; i < tableCapacity_; ++i) entries[4 * i + 3] = -1;
  maxProbe_ = 0;
  const uint32_t mask = tableCapacity_ - 1;
  for (const auto& [key, slot] : resident_) {
    uint32_t i = gpuRegionHash(key) & mask, probe = 0;
    while (entries[4 * i + 3] >= 0) {
      i = (i + 1) & mask;
      ++probe;
    }
    entries[4 * i + 0] = key.x;
    entries[4 * i + 1] = key.y;
    entries[4 * i + 2] = key.z;
    entries[4 * i + 3] = int32_t(slot);
    maxProbe_ = std::max(maxProbe_, probe);
  }
  scheduler_.upload(table_.range(), entries.data(), entries.size() * 4);
  tableDirty_ = false;
  ++stats_.tableUploads;
}

void RegionCache::syncToMap() {
  if (readOnly_) throw Error("RegionCache::syncToMap on a read-only cache");
  for (uint32_t slot = 0; slot < slots_.size(); ++slot)
    if (slots_[slot].used && map_.needsCopyBack(slots_[slot].key)) readBack(slot, slots_[slot].key);
  completeEvictions(true);
}

void RegionCache::syncAndRelease() {
  syncToMap();
  dropSlots();
}

void RegionCache::release() {
  if (!readOnly_) throw Error("RegionCache::release on a cache that writes back: use syncAndRelease");
  dropSlots();
}

void RegionCache::dropSlots() {
  for (Slot& slot : slots_) slot.used = false;
  resident_.clear();
  tableDirty_ = true;
}

}  // namespace voxen

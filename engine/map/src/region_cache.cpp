#include "voxen/map/region_cache.hpp"

#include <algorithm>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// Bits of kUnobserved (+inf), the value a fresh slot starts with.
constexpr uint32_t kUnobservedBits = 0x7f800000u;

Buffer poolBuffer(Scheduler& s, const char* name, bool enabled, uint64_t bytes) {
  return enabled ? Buffer(s.device(), name, bytes) : Buffer();
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
  Future<float> occupancy;
  Future<VoxelMean> mean;
  Future<uint64_t> traversal;
  Future<uint32_t> hitMiss;
  Future<float> touch;
};

uint64_t RegionCache::bytesPerRegion(const OccupancyMap& map) {
  const uint32_t layers = map.layers();
  uint64_t perVoxel = 4;
  if (layers & kLayerVoxelMean) perVoxel += sizeof(VoxelMean);
  if (layers & kLayerTraversal) perVoxel += 8;
  if (layers & kLayerHitMiss) perVoxel += 8;
  if (layers & kLayerTouchTime) perVoxel += 4;
  return perVoxel * map.voxelsPerRegion();
}

RegionCache::RegionCache(Scheduler& scheduler, OccupancyMap& map, uint64_t bytes)
    : scheduler_(scheduler), map_(map), voxels_(map.voxelsPerRegion()) {
  const uint64_t perRegion = bytesPerRegion(map);
  const uint64_t slots = bytes / perRegion;
  if (slots == 0)
    throw Error("GPU region cache of " + formatBytes(bytes) + " holds no region (one needs " + formatBytes(perRegion) +
                "): raise --gpu-cache-mb");
  if (slots * voxels_ > (1ull << 31)) throw Error("GPU region cache too large: at most 2^31 voxels");
  const uint32_t layers = map.layers();
  const uint64_t v = slots * voxels_;
  occupancy_ = Buffer(scheduler.device(), "region cache occupancy", v * 4);
  mean_ = poolBuffer(scheduler, "region cache voxel mean", layers & kLayerVoxelMean, v * sizeof(VoxelMean));
  traversal_ = poolBuffer(scheduler, "region cache traversal", layers & kLayerTraversal, v * 8);
  hitMiss_ = poolBuffer(scheduler, "region cache hit/miss", layers & kLayerHitMiss, v * 8);
  touch_ = poolBuffer(scheduler, "region cache touch time", layers & kLayerTouchTime, v * 4);
  tableCapacity_ = 16;
  while (tableCapacity_ < 2 * slots) tableCapacity_ *= 2;
  table_ = Buffer(scheduler.device(), "region cache table", uint64_t(tableCapacity_) * 16);
  slots_.resize(slots);
}

RegionCache::~RegionCache() = default;

std::vector<BufferRange> RegionCache::poolRanges() const {
  std::vector<BufferRange> ranges{occupancy_.range()};
  for (const Buffer* b : {&mean_, &traversal_, &hitMiss_, &touch_})
    if (b->handle()) ranges.push_back(b->range());
  return ranges;
}

void RegionCache::readBack(uint32_t slot, const RegionKey& key) {
  auto pending = std::make_unique<PendingEviction>();
  pending->key = key;
  const uint64_t base = uint64_t(slot) * voxels_;
  pending->occupancy = scheduler_.readback<float>(occupancy_.range(base * 4, voxels_ * 4));
  if (mean_.handle()) pending->mean = scheduler_.readback<VoxelMean>(mean_.range(base * 16, voxels_ * 16));
  if (traversal_.handle()) pending->traversal = scheduler_.readback<uint64_t>(traversal_.range(base * 8, voxels_ * 8));
  if (hitMiss_.handle()) pending->hitMiss = scheduler_.readback<uint32_t>(hitMiss_.range(base * 8, voxels_ * 8));
  if (touch_.handle()) pending->touch = scheduler_.readback<float>(touch_.range(base * 4, voxels_ * 4));
  pending_.push_back(std::move(pending));
}

void RegionCache::completeEvictions(bool wait, const RegionKey* only) {
  std::erase_if(pending_, [&](std::unique_ptr<PendingEviction>& p) {
    if (only && !(p->key == *only)) return false;
    if (!wait && !p->occupancy.ready()) return false;
    Region& region = map_.region(p->key);
    region.occupancy = p->occupancy.get();
    if (p->mean.valid()) region.mean = p->mean.get();
    if (p->traversal.valid()) region.traversal = p->traversal.get();
    if (p->hitMiss.valid()) {
      const auto pairs = p->hitMiss.get();
      for (size_t i = 0; i < voxels_; ++i) {
        region.hits[i] = pairs[2 * i];
        region.misses[i] = pairs[2 * i + 1];
      }
    }
    if (p->touch.valid()) region.touchTime = p->touch.get();
    return true;
  });
}

void RegionCache::evict(uint32_t slot) {
  readBack(slot, slots_[slot].key);
  resident_.erase(slots_[slot].key);
  slots_[slot].used = false;
  tableDirty_ = true;
  ++stats_.evictions;
}

void RegionCache::load(uint32_t slot, const RegionKey& key) {
  // A region evicted earlier must land in the host map before it is uploaded again.
  completeEvictions(true, &key);
  const uint64_t base = uint64_t(slot) * voxels_;
  const Region* region = map_.findRegion(key);
  if (region) {
    scheduler_.upload(occupancy_.range(base * 4, voxels_ * 4), region->occupancy.data(), voxels_ * 4);
    if (mean_.handle()) scheduler_.upload(mean_.range(base * 16, voxels_ * 16), region->mean.data(), voxels_ * 16);
    if (traversal_.handle())
      scheduler_.upload(traversal_.range(base * 8, voxels_ * 8), region->traversal.data(), voxels_ * 8);
    if (hitMiss_.handle()) {
      std::vector<uint32_t> pairs(2 * voxels_);
      for (size_t i = 0; i < voxels_; ++i) {
        pairs[2 * i] = region->hits[i];
        pairs[2 * i + 1] = region->misses[i];
      }
      scheduler_.upload(hitMiss_.range(base * 8, voxels_ * 8), pairs.data(), voxels_ * 8);
    }
    if (touch_.handle()) scheduler_.upload(touch_.range(base * 4, voxels_ * 4), region->touchTime.data(), voxels_ * 4);
  } else {
    scheduler_.fill(occupancy_.range(base * 4, voxels_ * 4), kUnobservedBits);
    if (mean_.handle()) scheduler_.fill(mean_.range(base * 16, voxels_ * 16), 0);
    if (traversal_.handle()) scheduler_.fill(traversal_.range(base * 8, voxels_ * 8), 0);
    if (hitMiss_.handle()) scheduler_.fill(hitMiss_.range(base * 8, voxels_ * 8), 0);
    if (touch_.handle()) scheduler_.fill(touch_.range(base * 4, voxels_ * 4), 0);
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
  if (tableDirty_) uploadTable();
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
  for (uint32_t slot = 0; slot < slots_.size(); ++slot)
    if (slots_[slot].used) readBack(slot, slots_[slot].key);
  completeEvictions(true);
}

}  // namespace voxen

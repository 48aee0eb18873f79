#include "voxen/map/map.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen {

void OccupancyModel::validate() const {
  // Each message names the field (SettingError), so that a program can name its own option.
  auto check = [](bool ok, const char* field, const char* words, const std::string& why) {
    if (!ok)
      throw SettingError(SettingError::Kind::Invalid, std::string("OccupancyModel::") + field, words,
                         "occupancy model: {} " + why);
  };
  // Below 0.1 mm or above 1 km the voxel coordinates of ordinary scenes overflow or a map
  // is one voxel: both are mistakes (a unit error, a typo), not maps.
  check(resolution >= kMinResolution && resolution <= kMaxResolution, "resolution", "resolution",
        "must be between 0.0001 and 1000 metres (got " + formatNumber(resolution) + ")");
  check(regionSize >= 4 && regionSize <= 128, "regionSize", "region size",
        "must be between 4 and 128 voxels (got " + std::to_string(regionSize) + ")");
  check(hitProbability > 0.5f && hitProbability < 1.0f, "hitProbability", "hit probability",
        "must be in (0.5, 1) (got " + formatNumber(hitProbability) + ")");
  check(missProbability > 0.0f && missProbability < 0.5f, "missProbability", "miss probability",
        "must be in (0, 0.5) (got " + formatNumber(missProbability) + ")");
  check(occupancyThreshold > 0.0f && occupancyThreshold < 1.0f, "occupancyThreshold", "occupancy threshold",
        "must be in (0, 1) (got " + formatNumber(occupancyThreshold) + ")");
  check(clampMin < clampMax && std::isfinite(clampMin) && std::isfinite(clampMax), "clamp", "clamp",
        "must be finite with min < max (got " + formatNumber(clampMin) + " and " + formatNumber(clampMax) + ")");
}

OccupancyMap::OccupancyMap(OccupancyModel model, LayerSet layers) : OccupancyMap(model, MapLayout::of(layers)) {}

OccupancyMap::OccupancyMap(OccupancyModel model, MapLayout layout) : model_(model), layout_(std::move(layout)) {
  model_.validate();
}

VoxelCoord OccupancyMap::voxelAt(const glm::dvec3& point) const {
  return {int32_t(std::floor(point.x / model_.resolution)), int32_t(std::floor(point.y / model_.resolution)),
          int32_t(std::floor(point.z / model_.resolution))};
}

glm::dvec3 OccupancyMap::voxelCentre(const VoxelCoord& v) const {
  return {(v.x + 0.5) * model_.resolution, (v.y + 0.5) * model_.resolution, (v.z + 0.5) * model_.resolution};
}

RegionKey OccupancyMap::regionOf(const VoxelCoord& v) const { return VoxelToRegion(model_.regionSize)(v); }

uint32_t OccupancyMap::localIndex(const VoxelCoord& v) const {
  const int32_t n = model_.regionSize;
  const RegionKey r = regionOf(v);
  return uint32_t((v.x - r.x * n) + n * ((v.y - r.y * n) + n * (v.z - r.z * n)));
}

VoxelCoord OccupancyMap::voxelOf(const RegionKey& region, uint32_t index) const {
  const int32_t n = model_.regionSize;
  return {region.x * n + int32_t(index % n), region.y * n + int32_t(index / n % n), region.z * n + int32_t(index / (n * n))};
}

namespace {

// A layer's array for one region, every voxel at the type's initial value.
void initialiseLayer(Region& r, LayerId id, size_t count) {
  const LayerType& type = layerType(id);
  std::vector<std::byte>& array = r.layers[id];
  array.assign(count * type.bytesPerVoxel, std::byte{0});
  const bool zeros = std::all_of(type.initialValue.begin(), type.initialValue.end(), [](std::byte b) { return b == std::byte{0}; });
  if (!zeros)
    for (size_t v = 0; v < count; ++v) std::memcpy(array.data() + v * type.bytesPerVoxel, type.initialValue.data(), type.bytesPerVoxel);
}

}  // namespace

Region OccupancyMap::makeRegion(const RegionKey& key) const {
  Region r;
  r.key = key;
  for (LayerId id : layout_.ids()) initialiseLayer(r, id, voxelsPerRegion());
  return r;
}

void OccupancyMap::addLayer(LayerId id) {
  if (layout_.has(id)) return;
  layout_.add(id);
  for (auto& [key, region] : regions_) initialiseLayer(region, id, voxelsPerRegion());
}

uint64_t OccupancyMap::bytesPerRegion() const {
  uint64_t bytes = 0;
  for (LayerId id : layout_.ids()) bytes += uint64_t(layerType(id).bytesPerVoxel) * voxelsPerRegion();
  return bytes;
}

void OccupancyMap::setRegionLimit(uint64_t regions, std::string hint) {
  regionLimit_ = regions;
  regionLimitHint_ = std::move(hint);
}

Region& OccupancyMap::region(const RegionKey& key) {
  if (Region* found = findRegion(key)) return *found;
  if (!regionKeyInRange(key, model_.regionSize))
    throw Error("region key (" + std::to_string(key.x) + "," + std::to_string(key.y) + "," + std::to_string(key.z) +
                ") is outside the int32 voxel range for region size " + std::to_string(model_.regionSize));
  if (regions_.size() >= regionLimit_)
    throw Error("the map would grow past its limit of " + std::to_string(regionLimit_) + " regions (" +
                std::to_string(bytesPerRegion()) + " bytes each, " + mebibytes(uint64_t(std::min(double(regionLimit_) * double(bytesPerRegion()), 1.8e19))) +
                ") when creating region (" + std::to_string(key.x) + ", " + std::to_string(key.y) + ", " +
                std::to_string(key.z) + ")" + (regionLimitHint_.empty() ? "" : ": " + regionLimitHint_));
  Region& created = regions_.emplace(key, makeRegion(key)).first->second;
  // A new region is a change for the layers derived from it (its own clearance is due), but
  // not for its voxel classes: every voxel starts unobserved, which is what a missing region
  // reads as everywhere (clearance's obstacles included). Its updates report their crossings.
  markValuesChanged(created);
  adoptDroppedStamp(created);
  return created;
}

void OccupancyMap::markValuesChanged(const RegionKey& key) {
  auto found = regions_.find(key);
  if (found != regions_.end()) return markValuesChanged(found->second);
  // Paged out while the GPU holds it and changes it: as markOccupancyChanged(key).
  if (source_ && source_->holds(key)) markValuesChanged(regionToOverwrite(key));
}

void OccupancyMap::markClassesChanged(Region& region, VoxelClassChanges changes) {
  if (!changes.any()) return;
  const uint64_t stamp = ++changeCounter_;
  if (changes.occupied) region.occupiedSetStamp = stamp;
  if (changes.free) region.freeSetStamp = stamp;
}

uint64_t OccupancyMap::classSetStamp(const RegionKey& key, VoxelClass which) const {
  if (const Region* region = findRegion(key)) return which == VoxelClass::Occupied ? region->occupiedSetStamp : region->freeSetStamp;
  auto dropped = droppedStamps_.find(key);
  return dropped == droppedStamps_.end() ? 0 : dropped->second;
}

void OccupancyMap::dropRegion(const RegionKey& key) {
  if (regions_.erase(key)) droppedStamps_[key] = ++changeCounter_;
}

// A region made again where one was dropped: its classes changed then (from what the layers
// derived from it last saw), which its stamps keep now.
void OccupancyMap::adoptDroppedStamp(Region& region) {
  auto dropped = droppedStamps_.find(region.key);
  if (dropped == droppedStamps_.end()) return;
  region.occupiedSetStamp = std::max(region.occupiedSetStamp, dropped->second);
  region.freeSetStamp = std::max(region.freeSetStamp, dropped->second);
  droppedStamps_.erase(dropped);
}

VoxelClassChanges classChanges(std::span<const float> before, std::span<const float> after, float threshold) {
  VoxelClassChanges changes;
  const size_t n = std::min(before.size(), after.size());
  for (size_t i = 0; i < n && !(changes.occupied && changes.free); ++i) {
    if (before[i] == after[i]) continue;
    changes |= classChanges(before[i], after[i], threshold);
  }
  if (before.size() != after.size()) changes = {true, true};
  return changes;
}

void OccupancyMap::markOccupancyChanged(const RegionKey& key) {
  auto found = regions_.find(key);
  if (found != regions_.end()) return markOccupancyChanged(found->second);
  // Paged out while the GPU holds it and changes it: the copy back overwrites the whole
  // region, so it is made here, not read, and marked now so that its change is saved.
  if (source_ && source_->holds(key)) markOccupancyChanged(regionToOverwrite(key));
}

bool regionKeyInRange(const RegionKey& key, int32_t regionSize) {
  const int64_t n = regionSize;
  auto fits = [&](int32_t k) {
    const int64_t first = int64_t(k) * n, last = first + n - 1;
    return first >= INT32_MIN && last <= INT32_MAX;
  };
  return fits(key.x) && fits(key.y) && fits(key.z);
}

const Region* OccupancyMap::findRegion(const RegionKey& key) const {
  auto found = regions_.find(key);
  return found == regions_.end() ? nullptr : &found->second;
}

Region* OccupancyMap::findRegion(const RegionKey& key) {
  auto found = regions_.find(key);
  if (found != regions_.end()) return &found->second;
  if (!source_) return nullptr;
  std::optional<Region> fetched = source_->fetch(key);
  if (!fetched) return nullptr;
  fetched->key = key;
  fetched->occupancyStamp = 0;  // as saved: not a change
  fetched->occupiedSetStamp = fetched->freeSetStamp = 0;
  fetched->derivedStamp = {};
  Region& inserted = regions_.emplace(key, std::move(*fetched)).first->second;
  adoptDroppedStamp(inserted);
  return &inserted;
}

bool OccupancyMap::needsCopyBack(const RegionKey& key) const {
  if (!source_) return true;
  auto found = regions_.find(key);
  if (found != regions_.end()) return found->second.occupancyStamp > savedCounter_;
  return !source_->holds(key);  // new since it was saved
}

Region& OccupancyMap::regionToOverwrite(const RegionKey& key) {
  auto found = regions_.find(key);
  if (found != regions_.end()) return found->second;
  if (source_ && source_->holds(key)) {
    Region& made = regions_.emplace(key, makeRegion(key)).first->second;
    adoptDroppedStamp(made);
    return made;
  }
  return region(key);
}

float OccupancyMap::value(const VoxelCoord& voxel) const {
  const Region* r = findRegion(regionOf(voxel));
  return r ? r->occupancy()[localIndex(voxel)] : kUnobserved;
}

VoxelClass OccupancyMap::classify(float value) const {
  if (!isObserved(value)) return VoxelClass::Unobserved;
  return value >= model_.thresholdValue() ? VoxelClass::Occupied : VoxelClass::Free;
}

OccupancyMap::Counts OccupancyMap::counts(const Region& region) const {
  Counts c;
  c.regions = 1;
  const float threshold = model_.thresholdValue();
  for (float v : region.occupancy()) {
    if (!isObserved(v)) continue;
    if (v >= threshold)
      ++c.occupied;
    else
      ++c.free;
  }
  return c;
}

OccupancyMap::Counts OccupancyMap::counts() const {
  Counts c;
  for (const auto& [key, region] : regions_) c += counts(region);
  return c;
}

}  // namespace voxen

#pragma once
// The map: a sparse set of dense regions (default 32^3 voxels) keyed by integer region
// coordinates. Each voxel holds a float log-odds value or kUnobserved, plus the other layers
// of the map's layout (voxen/map/layer.hpp). Host positions are double precision; the GPU works
// in float relative to a nearby voxel so that maps kilometres wide keep voxel-exact walks.
#include <glm/vec3.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/map/layer.hpp"

namespace voxen {

// +infinity marks a voxel no ray has touched; its first update starts from 0.
inline constexpr float kUnobserved = std::numeric_limits<float>::infinity();
inline bool isObserved(float value) { return value != kUnobserved; }

struct VoxelCoord {
  int32_t x = 0, y = 0, z = 0;
  bool operator==(const VoxelCoord&) const = default;
};

struct RegionKey {
  int32_t x = 0, y = 0, z = 0;
  bool operator==(const RegionKey&) const = default;
  bool operator<(const RegionKey& o) const { return x != o.x ? x < o.x : y != o.y ? y < o.y : z < o.z; }
};

struct RegionKeyHash {
  size_t operator()(const RegionKey& k) const {
    uint64_t h = uint64_t(uint32_t(k.x)) * 0x9E3779B185EBCA87ull;
    h ^= uint64_t(uint32_t(k.y)) * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= uint64_t(uint32_t(k.z)) * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    return size_t(h ^ (h >> 29));
  }
};

// The resolutions a model accepts (metres per voxel edge).
inline constexpr double kMinResolution = 1e-4;
inline constexpr double kMaxResolution = 1e3;

// Probabilities and limits of the occupancy model. Defaults follow OHM.
struct OccupancyModel {
  double resolution = 0.1;  // metres per voxel edge
  int32_t regionSize = 32;  // voxels per region edge
  float hitProbability = 0.9f;
  float missProbability = 0.45f;
  float occupancyThreshold = 0.5f;  // probability at or above which a voxel is occupied
  float clampMin = -2.0f;           // log-odds
  float clampMax = 3.511f;

  static OccupancyModel ohm() { return {}; }
  // OctoMap's defaults: hit 0.7, miss 0.4, clamp [-2, 3.5].
  static OccupancyModel octomap() {
    OccupancyModel m;
    m.hitProbability = 0.7f;
    m.missProbability = 0.4f;
    m.clampMin = -2.0f;
    m.clampMax = 3.5f;
    return m;
  }
  float hitValue() const { return logOdds(hitProbability); }
  float missValue() const { return logOdds(missProbability); }
  float thresholdValue() const { return logOdds(occupancyThreshold); }
  static float logOdds(float p) { return float(std::log(double(p) / (1.0 - double(p)))); }
  // Throws Error naming the field when a value is out of range.
  void validate() const;
};

// Sub-voxel mean as exact integer sums: offsets within the voxel quantised to 1/1024 of a
// voxel, so that GPU atomics add them in any order to the same result. (kVoxelMeanLayer)
struct VoxelMean {
  uint32_t count = 0;
  uint32_t sum[3] = {0, 0, 0};
  static constexpr float kScale = 1024.0f;
  bool operator==(const VoxelMean&) const = default;
};

// Hit and miss counts of a voxel (kHitMissLayer).
struct HitMiss {
  uint32_t hits = 0;
  uint32_t misses = 0;
  bool operator==(const HitMiss&) const = default;
};

// One dense block of voxels: one contiguous array per layer of the map's layout, indexed by
// layer id (the arrays of layers the map does not have are empty). Voxels x fastest, then
// y, then z.
struct Region {
  RegionKey key;
  PerLayer<std::vector<std::byte>> layers;
  // Dirty stamps (OccupancyMap::markOccupancyChanged): when the region's occupancy last
  // changed, and when each layer derived from occupancy (clearance) was last computed for
  // it, on the map's change counter. In memory only: a loaded map's regions are all new.
  uint64_t occupancyStamp = 0;
  PerLayer<uint64_t> derivedStamp;
  // Finer stamps for what depends only on voxel classes (clearance: its obstacles are the
  // occupied voxels, or every voxel not free): when a voxel last entered or left the
  // occupied class, and the free class (OccupancyMap::markClassesChanged). Most log-odds
  // updates of a scan cross neither, so a layer derived from classes recomputes far less.
  uint64_t occupiedSetStamp = 0;
  uint64_t freeSetStamp = 0;

  // A layer's voxels as T (T's size must be the layer's bytes per voxel); empty when off.
  template <class T>
  std::span<T> values(LayerId id) {
    return {reinterpret_cast<T*>(layers[id].data()), layers[id].size() / sizeof(T)};
  }
  template <class T>
  std::span<const T> values(LayerId id) const {
    return {reinterpret_cast<const T*>(layers[id].data()), layers[id].size() / sizeof(T)};
  }
  // The built-in layers.
  std::span<float> occupancy() { return values<float>(kOccupancyLayer); }  // log-odds or kUnobserved
  std::span<const float> occupancy() const { return values<float>(kOccupancyLayer); }
  std::span<VoxelMean> mean() { return values<VoxelMean>(kVoxelMeanLayer); }
  std::span<const VoxelMean> mean() const { return values<VoxelMean>(kVoxelMeanLayer); }
  std::span<uint64_t> traversal() { return values<uint64_t>(kTraversalLayer); }  // 1/65536 voxel units
  std::span<const uint64_t> traversal() const { return values<uint64_t>(kTraversalLayer); }
  std::span<HitMiss> hitMiss() { return values<HitMiss>(kHitMissLayer); }
  std::span<const HitMiss> hitMiss() const { return values<HitMiss>(kHitMissLayer); }
  std::span<double> touchTime() { return values<double>(kTouchTimeLayer); }  // latest ray time (s) that touched; 0: never
  std::span<const double> touchTime() const { return values<double>(kTouchTimeLayer); }
  static constexpr double kTraversalScale = 65536.0;
};

enum class VoxelClass { Unobserved, Free, Occupied };

// Which class sets a voxel's update changed: whether it entered or left the occupied class,
// and the free class (unobserved to free changes only the free set).
struct VoxelClassChanges {
  bool occupied = false, free = false;
  bool any() const { return occupied || free; }
  VoxelClassChanges& operator|=(const VoxelClassChanges& o) {
    occupied = occupied || o.occupied, free = free || o.free;
    return *this;
  }
};
// The class changes from `before` to `after` under `threshold` (log-odds): per voxel, or over
// two arrays of voxels (a region's occupancy before and after a copy back).
inline VoxelClassChanges classChanges(float before, float after, float threshold) {
  const bool occupiedBefore = isObserved(before) && before >= threshold, occupiedAfter = isObserved(after) && after >= threshold;
  const bool freeBefore = isObserved(before) && !occupiedBefore, freeAfter = isObserved(after) && !occupiedAfter;
  return {occupiedBefore != occupiedAfter, freeBefore != freeAfter};
}
VoxelClassChanges classChanges(std::span<const float> before, std::span<const float> after, float threshold);

// Regions kept outside memory (a store that a mapping run pages regions out to,
// voxen/store/store_mapping.hpp): a map with a source fetches a region it does not hold from
// the source before it creates one.
class RegionSource {
 public:
  virtual ~RegionSource() = default;
  // The region as the source holds it, or nullopt when it has none.
  virtual std::optional<Region> fetch(const RegionKey& key) = 0;
  // Whether the source holds the region (without reading it).
  virtual bool holds(const RegionKey& key) const = 0;
};

class OccupancyMap {
 public:
  // Occupancy plus the layers of the set (`kVoxelMeanLayer | kHitMissLayer`), in id order.
  explicit OccupancyMap(OccupancyModel model = {}, LayerSet layers = {});
  OccupancyMap(OccupancyModel model, MapLayout layout);

  const OccupancyModel& model() const { return model_; }
  const MapLayout& layout() const { return layout_; }
  // The layers the map holds besides occupancy.
  LayerSet layers() const { return layout_.optionalLayers(); }
  int32_t regionSize() const { return model_.regionSize; }
  size_t voxelsPerRegion() const { return size_t(model_.regionSize) * model_.regionSize * model_.regionSize; }
  // The first integrated ray's time (informational; touch times are absolute and do not use it).
  double timeOrigin() const { return timeOrigin_; }
  void setTimeOrigin(double t) { timeOrigin_ = t; }

  VoxelCoord voxelAt(const glm::dvec3& point) const;
  glm::dvec3 voxelCentre(const VoxelCoord& voxel) const;
  RegionKey regionOf(const VoxelCoord& voxel) const;
  uint32_t localIndex(const VoxelCoord& voxel) const;
  VoxelCoord voxelOf(const RegionKey& region, uint32_t localIndex) const;

  // The region, created (every layer at its initial value: unobserved, zero counts) when
  // missing. Throws Error for a key whose voxels would not have int32 coordinates, and for
  // one past the region limit (naming the key and the limit).
  // With a region source, a region missing here is fetched from it first (not a change:
  // its stamps stay 0).
  Region& region(const RegionKey& key);
  // region(), for a caller about to overwrite every layer of the region (a copy back from
  // the GPU): a region the source holds is not read, only made (at initial values, not
  // stamped as a change), since its contents are about to be replaced.
  Region& regionToOverwrite(const RegionKey& key);
  // Regions the map may hold: a memory budget set by the caller before the map grows, so it
  // fails with a clear message rather than exhausting memory. `hint` ends the message (what
  // the user can change). Default: no limit.
  void setRegionLimit(uint64_t regions, std::string hint = {});
  uint64_t regionLimit() const { return regionLimit_; }
  const std::string& regionLimitHint() const { return regionLimitHint_; }
  // Host bytes one region takes (every layer of the layout).
  uint64_t bytesPerRegion() const;
  // The const form sees only the regions in memory; the other fetches from the region
  // source (when there is one) a region that is not.
  const Region* findRegion(const RegionKey& key) const;
  Region* findRegion(const RegionKey& key);
  // Paging (a map larger than memory): the source that regions not in memory come from (not
  // owned; nullptr: none), and dropping a region from memory, which its caller has saved to
  // the source. regions(), counts() and the const reads see the regions in memory only.
  void setRegionSource(RegionSource* source) { source_ = source; }
  // The map was saved to its region source: regions with no change since (occupancyStamp at
  // most savedCounter()) equal their saved copies.
  void markSaved() { savedCounter_ = changeCounter_; }
  uint64_t savedCounter() const { return savedCounter_; }
  // Whether a copy of region `key` held elsewhere (the GPU's region cache) must be copied
  // back into the map: always without a region source; with one, unless the region has not
  // changed since the map was saved (in memory with an old stamp, or paged out: the GPU
  // batcher marks a paged-out region it changes, which brings it back into memory).
  bool needsCopyBack(const RegionKey& key) const;
  RegionSource* regionSource() const { return source_; }
  void evictRegion(const RegionKey& key) { regions_.erase(key); }
  const std::unordered_map<RegionKey, Region, RegionKeyHash>& regions() const { return regions_; }
  Region makeRegion(const RegionKey& key) const;
  // Dirty tracking for layers derived from occupancy (clearance): whoever changes a region's
  // occupancy calls markOccupancyChanged (the integrators do, and creating a region does);
  // a derived layer records the counter when it computed a region (markDerived). Region
  // copies back from the GPU cache are not changes.
  // (By key: the GPU integrator, for the regions of a batch; a region it holds only on the
  // GPU is left to be marked when it is copied back.)
  void markOccupancyChanged(const RegionKey& key);
  // Any change: the class stamps too (a caller that does not know which voxels crossed).
  void markOccupancyChanged(Region& region) {
    region.occupancyStamp = region.occupiedSetStamp = region.freeSetStamp = ++changeCounter_;
  }
  // A change whose class crossings the caller reports itself (markClassesChanged): the
  // integrators, which see each voxel's value before and after.
  void markValuesChanged(const RegionKey& key);
  void markValuesChanged(Region& region) { region.occupancyStamp = ++changeCounter_; }
  // Voxels of the region entered or left the occupied class and/or the free class.
  void markClassesChanged(Region& region, VoxelClassChanges changes);
  // When the set of occupied (or free) voxels of region `key` last changed: its stamp while
  // the map holds it, else when it was dropped (dropRegion), else 0.
  uint64_t classSetStamp(const RegionKey& key, VoxelClass which) const;
  // Drops a region from memory for good (a local window): unlike evictRegion, what is
  // derived from its neighbours sees it change (to unobserved), so it is remembered when.
  void dropRegion(const RegionKey& key);
  void markDerived(Region& region, LayerId layer) { region.derivedStamp[layer] = ++changeCounter_; }
  uint64_t changeCounter() const { return changeCounter_; }
  // The settings a derived layer was last computed with (empty: never), so that other
  // settings recompute every region.
  const std::string& derivedSettings(LayerId layer) const { return derivedSettings_[layer]; }
  void setDerivedSettings(LayerId layer, std::string settings) { derivedSettings_[layer] = std::move(settings); }

  // Adds a layer to the layout (no effect when present); every existing region gets its
  // array at the layer's initial value. (A loaded map gaining a computed layer, such as
  // clearance.)
  void addLayer(LayerId id);

  float value(const VoxelCoord& voxel) const;  // kUnobserved when its region is missing
  VoxelClass classify(float value) const;
  VoxelClass classify(const VoxelCoord& voxel) const { return classify(value(voxel)); }

  struct Counts {
    uint64_t occupied = 0, free = 0, regions = 0;
    Counts& operator+=(const Counts& more) {
      occupied += more.occupied, free += more.free, regions += more.regions;
      return *this;
    }
  };
  Counts counts() const;
  // One region's occupied and free voxels (regions: 1), by this map's threshold: for a caller
  // that keeps counts of regions the map no longer holds in memory.
  Counts counts(const Region& region) const;

 private:
  OccupancyModel model_;
  MapLayout layout_;
  double timeOrigin_ = 0.0;
  uint64_t regionLimit_ = UINT64_MAX;
  std::string regionLimitHint_;
  std::unordered_map<RegionKey, Region, RegionKeyHash> regions_;
  uint64_t changeCounter_ = 0;
  PerLayer<std::string> derivedSettings_;
  RegionSource* source_ = nullptr;
  uint64_t savedCounter_ = 0;
  // dropRegion: when each dropped region left (until it is made again).
  std::unordered_map<RegionKey, uint64_t, RegionKeyHash> droppedStamps_;
  void adoptDroppedStamp(Region& region);
};

// Whether every voxel of region `key` has int32 coordinates (key * regionSize fits, and so
// does its last voxel): keys outside this range cannot come from a voxel and are refused.
bool regionKeyInRange(const RegionKey& key, int32_t regionSize);

// Which voxel values are impossible (NaN, out of range, ...): voxen/map/layer_domain.hpp.

// Floor division that rounds towards negative infinity (region of a negative voxel).
// (a + 1) / b - 1 for negative a: -a would overflow for INT32_MIN.
inline int32_t floorDiv(int32_t a, int32_t b) { return a >= 0 ? a / b : (a + 1) / b - 1; }

// The region of a voxel for regions `regionSize` voxels a side: floorDiv per axis, or the
// arithmetic shift a power-of-two size allows (it rounds towards -inf too), decided once for
// a loop over many voxels. The map's regionOf, the batcher's and the ray preparation's.
class VoxelToRegion {
 public:
  explicit VoxelToRegion(int32_t regionSize)
      : size_(regionSize), shift_(std::has_single_bit(uint32_t(regionSize)) ? std::countr_zero(uint32_t(regionSize)) : -1) {}
  RegionKey operator()(const VoxelCoord& v) const {
    if (shift_ >= 0) return {v.x >> shift_, v.y >> shift_, v.z >> shift_};
    return {floorDiv(v.x, size_), floorDiv(v.y, size_), floorDiv(v.z, size_)};
  }

 private:
  int32_t size_;
  int shift_;  // log2 of the size, or -1
};

}  // namespace voxen

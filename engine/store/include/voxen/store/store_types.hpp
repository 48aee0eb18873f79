#pragma once
// The values every store shares (voxen/store/map_store.hpp): a box, the store's description
// and one transaction's worth of changes.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/map/map.hpp"

namespace voxen {

// Format 2: every row's checksum covers its region key and layer as well as its bytes, and
// every description field and layer-table row has a checksum of its own. Format 1 stores
// (checksums over the row bytes only) are still read, never written to.
inline constexpr uint32_t kRegionStoreFormatVersion = 2;
inline constexpr uint32_t kOldestReadableRegionStoreFormat = 1;

// An axis-aligned box in metres (min <= max on every axis).
struct StoreBox {
  glm::dvec3 min{0.0};
  glm::dvec3 max{0.0};
};

// The inclusive range of region keys whose regions intersect `box` (a region covers
// [key * edge, (key + 1) * edge) on each axis, edge = resolution x region size).
struct RegionKeyRange {
  RegionKey min, max;
  bool contains(const RegionKey& k) const {
    return k.x >= min.x && k.x <= max.x && k.y >= min.y && k.y <= max.y && k.z >= min.z && k.z <= max.z;
  }
};
RegionKeyRange regionKeysIntersecting(const OccupancyModel& model, const StoreBox& box);

// What a store holds besides its regions.
struct StoreDescription {
  uint32_t formatVersion = kRegionStoreFormatVersion;
  OccupancyModel model;
  MapLayout layout;
  double timeOrigin = 0.0;
  PerLayer<std::string> derivedSettings;  // per layer id; empty: none

  static StoreDescription of(const OccupancyMap& map);
  // An empty map with this model, layout, time origin and derived settings.
  OccupancyMap emptyMap() const;
};

struct RegionStoreOptions {
  int compressionLevel = 1;    // zstd level (1: fastest; 1-19)
  int busyTimeoutMs = 5000;    // how long a write waits for another connection's write lock
};

// One transaction's worth of changes.
struct StoreBatch {
  std::vector<const Region*> regions;                      // every layer of the store's layout
  std::vector<std::pair<std::string, std::string>> state;  // run-state entries to set
  std::optional<double> timeOrigin;                        // a new time origin
};

}  // namespace voxen

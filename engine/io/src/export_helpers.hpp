#pragma once
// What the binary exports share: little-endian appends and regions in key order.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "voxen/map/map.hpp"

namespace voxen::io_detail {

template <typename T>
void appendLE(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// A map's regions in ascending key order (exports are deterministic whatever the hash order).
inline std::vector<const Region*> sortedRegions(const OccupancyMap& map) {
  std::vector<const Region*> regions;
  regions.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) regions.push_back(&region);
  std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
  return regions;
}

}  // namespace voxen::io_detail

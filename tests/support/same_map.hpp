#pragma once
// Two maps are the same bit for bit: layout, model bytes, time origin and every layer of every
// region. The store tests use it to prove a round trip through a store loses nothing.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <cstring>

#include "voxen/map/map.hpp"

namespace vt {

inline void requireSameMap(const voxen::OccupancyMap& a, const voxen::OccupancyMap& b) {
  REQUIRE(a.layout() == b.layout());
  REQUIRE(std::memcmp(&a.model(), &b.model(), sizeof(voxen::OccupancyModel)) == 0);
  REQUIRE(std::bit_cast<uint64_t>(a.timeOrigin()) == std::bit_cast<uint64_t>(b.timeOrigin()));
  REQUIRE(a.regions().size() == b.regions().size());
  for (const auto& [key, region] : a.regions()) {
    const voxen::Region* other = b.findRegion(key);
    REQUIRE(other != nullptr);
    for (const voxen::LayerId id : a.layout().ids()) REQUIRE(region.layers[id] == other->layers[id]);
  }
}

}  // namespace vt

#pragma once
// The TSDF tests' map comparison: two maps' tsdf layers equal byte for byte.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>

#include "voxen/gpu/map/tsdf_layer.h"
#include "voxen/map/map.hpp"

namespace voxen::test {

// The same regions, the same tsdf voxels byte for byte, and at least `atLeast` of them
// observed (the comparison is about something).
inline void requireSameTsdf(const OccupancyMap& a, const OccupancyMap& b, size_t atLeast = 1001) {
  REQUIRE(a.regions().size() == b.regions().size());
  size_t differ = 0, observed = 0;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other != nullptr);
    const auto x = region.values<gpu::TsdfVoxel>(kTsdfLayer), y = other->values<gpu::TsdfVoxel>(kTsdfLayer);
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      differ += std::memcmp(&x[i], &y[i], sizeof x[i]) != 0;
      observed += x[i].weight > 0;
    }
  }
  INFO("voxels differing: " << differ << " of " << observed << " observed");
  CHECK(observed >= atLeast);
  CHECK(differ == 0);
}

}  // namespace voxen::test

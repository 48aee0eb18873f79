// VoxelToRegion (voxen/map/map.hpp), the one voxel-to-region rule of the map, the batcher and
// the ray preparation: its shift for power-of-two sizes must give floorDiv's regions at every
// voxel coordinate, the int32 extremes included.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "voxen/map/map.hpp"

using namespace voxen;

TEST_CASE("VoxelToRegion gives floor division's region for every size and coordinate", "[map]") {
  const int32_t lowest = std::numeric_limits<int32_t>::min(), highest = std::numeric_limits<int32_t>::max();
  for (int32_t size : {4, 5, 8, 32, 33, 128}) {
    const VoxelToRegion regionOf(size);
    for (int32_t v : {lowest, lowest + 1, -size - 1, -size, -size + 1, -1, 0, 1, size - 1, size, size + 1, highest - 1,
                      highest}) {
      INFO("size " << size << ", voxel " << v);
      const RegionKey key = regionOf({v, -v - 1, v / 3});
      CHECK(key.x == floorDiv(v, size));
      CHECK(key.y == floorDiv(-v - 1, size));
      CHECK(key.z == floorDiv(v / 3, size));
      // The region holds the voxel: key * size <= v < (key + 1) * size.
      CHECK(int64_t(key.x) * size <= v);
      CHECK(v < (int64_t(key.x) + 1) * size);
    }
  }
}

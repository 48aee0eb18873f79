#pragma once
// Two heightmaps with the same grid, cells and column flags, byte for byte (the GPU's against
// the CPU reference, an incrementally kept heightmap against one computed whole).
#include <catch2/catch.hpp>

#include <cstring>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen::test {

inline void requireSameCells(const Heightmap& expected, const Heightmap& other) {
  REQUIRE(expected.grid() == other.grid());
  REQUIRE(expected.cells().size() == other.cells().size());
  size_t differ = 0, first = SIZE_MAX;
  for (size_t i = 0; i < expected.cells().size(); ++i)
    if (std::memcmp(&expected.cells()[i], &other.cells()[i], sizeof(gpu::HeightmapCell)) != 0) {
      ++differ;
      if (first == SIZE_MAX) first = i;
    }
  INFO("cells differing: " << differ << " (first at " << first << ")");
  CHECK(differ == 0);
  CHECK(expected.columnFlags() == other.columnFlags());
}

}  // namespace voxen::test

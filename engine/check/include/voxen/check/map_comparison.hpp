#pragma once
// Two maps of the same grid compared voxel by voxel, layer by layer: what the tests and
// `voxen check` use to hold the GPU's maps to the CPU reference's. Every layer of `a`'s
// layout is compared byte for byte except traversal, a float sum whose GPU atomics add in
// any order (it gets a stated tolerance instead). NDT maps, whose free-space updates are
// order-dependent too, have their own comparison (voxen/check/ndt_comparison.hpp).
#include <cstdint>

#include "voxen/map/map.hpp"

namespace voxen {

struct MapComparison {
  uint64_t voxels = 0;     // observed in either map
  uint64_t sameBits = 0;   // of them, with the same occupancy bits
  uint64_t sameClass = 0;  // of them, classified alike (each by its own map's threshold)
  // With a hit_miss layer: voxels that saw only hits or only misses, and how many of those
  // have the same occupancy bits (their updates commute, whatever the order).
  uint64_t singleKind = 0, singleKindSame = 0;
  uint64_t layerMismatches = 0;      // voxels where another layer's bytes differ (traversal aside)
  uint64_t traversalMismatches = 0;  // voxels whose traversal differs by more than its tolerance
  bool identical() const { return sameBits == voxels && layerMismatches == 0 && traversalMismatches == 0; }
};

// Compares the voxels observed in either map; a region one map lacks reads as unobserved
// (the other map's layers compared with a new region's initial values). Throws Error when
// the maps' grids (resolution, region size) or layouts differ.
MapComparison compareMaps(const OccupancyMap& a, const OccupancyMap& b);

// The traversal tolerance: relative 1e-5, plus 2 units (1/65536 voxel) per update of the
// voxel, for float lengths summed in another order and rounded to fixed point per update.
bool traversalClose(uint64_t a, uint64_t b, uint64_t updates);

}  // namespace voxen

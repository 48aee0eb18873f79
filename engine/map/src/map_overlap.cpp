#include "voxen/map/map_overlap.hpp"

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// Occupied voxels of `from`, and how many of them `other` also holds occupied.
struct OccupiedCount {
  uint64_t occupied = 0, sharedWithOther = 0;
};

OccupiedCount countOccupied(const OccupancyMap& from, const OccupancyMap& other) {
  OccupiedCount c;
  for (const auto& [key, region] : from.regions())
    for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
      if (from.classify(region.occupancy()[i]) != VoxelClass::Occupied) continue;
      ++c.occupied;
      c.sharedWithOther += other.classify(from.voxelOf(key, i)) == VoxelClass::Occupied;
    }
  return c;
}

}  // namespace

OccupiedOverlap occupiedJaccard(const OccupancyMap& a, const OccupancyMap& b) {
  if (a.model().resolution != b.model().resolution)
    throw Error("cannot compare the occupied voxels of maps of different resolutions (" +
                formatNumber(a.model().resolution) + " m and " + formatNumber(b.model().resolution) + " m)");
  const OccupiedCount inA = countOccupied(a, b);
  const OccupiedCount inB = countOccupied(b, a);
  return {.intersection = inA.sharedWithOther, .unionCount = inA.occupied + inB.occupied - inA.sharedWithOther};
}

}  // namespace voxen

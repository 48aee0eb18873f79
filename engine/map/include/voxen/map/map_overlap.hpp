#pragma once
// How much two maps of the same grid agree on where the occupied voxels are: the Jaccard
// index |A and B| / |A or B| of their occupied sets, each voxel classified by its own map's
// threshold. `voxen bench map` uses it to compare the GPU's batch order with the
// sequential (OHM/OctoMap) order, where class agreement over all observed voxels is
// dominated by free space and hides differences at surfaces.
#include <cstdint>

#include "voxen/map/map.hpp"

namespace voxen {

struct OccupiedOverlap {
  uint64_t intersection = 0;  // voxels occupied in both maps
  uint64_t unionCount = 0;    // voxels occupied in either map
  // 1 when neither map has an occupied voxel (two empty maps agree completely).
  double jaccard() const { return unionCount ? double(intersection) / double(unionCount) : 1.0; }
};

// Throws Error when the maps' resolutions differ (their voxel coordinates would not name the
// same space).
OccupiedOverlap occupiedJaccard(const OccupancyMap& a, const OccupancyMap& b);

}  // namespace voxen

#pragma once
// Occupancy from a TSDF (issue 40's distance field from the surface): for what reads the
// occupancy layer (the clearance and its queries, the heightmap, the occupancy queries), the
// voxels depth frames observed become occupied on and behind the surface and free in front of
// it, where no ray said otherwise.
//
//   const voxen::TsdfOccupancyStats s = voxen::occupancyFromTsdf(map);   // then computeClearance
//
// A voxel with at least `minWeight` measurements in the tsdf layer and an unobserved occupancy
// gets the model's clampMax log-odds (occupied) when its distance is at most 0 (the surface
// lies at or in front of its centre: it is on the surface or inside the object) and clampMin
// (free) when positive. Voxels rays observed keep their occupancy. The clearance then measures
// from voxel centres on and behind the surface, so its distances are those to the surface
// within half a voxel (not sub-voxel).
//
// Threads: one thread at a time changes a map; regions are split over the machine's cores.
#include <cstdint>

#include "voxen/map/map.hpp"

namespace voxen {

struct TsdfOccupancyStats {
  uint64_t occupied = 0, free = 0;  // voxels set
};

// Throws Error when the map has no tsdf layer.
TsdfOccupancyStats occupancyFromTsdf(OccupancyMap& map, double minWeight = 1.0);

}  // namespace voxen

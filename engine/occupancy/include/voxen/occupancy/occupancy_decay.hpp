#pragma once
// Occupancy decay towards unknown (MapperRunOptions::decaySeconds, issue 38 item 5): OctoMap's
// OcTreeStamped::degradeOutdatedNodes made exact. An observed voxel whose touch time (the
// touch-time layer: the latest ray time that touched it) is older than a cut is forgotten:
// every layer the integrators write (occupancy, voxel mean, traversal, hit/miss counts, touch
// time, the NDT layers and a merged map's occupancy remainder) goes back to the value a
// never-touched voxel has, so a voxel seen again starts from unknown exactly as a new one
// does. Layers derived from occupancy (clearance) and custom layers are left to their own
// passes: forgetting changes the voxel's class, which bumps the region's class stamps, so
// incremental clearance recomputes what depends on it.
//
// Forgetting is idempotent and monotone in the cut (forgetting with cut a, then b >= a, equals
// forgetting with b), which is what lets the GPU Mapper forget on its synced host map and
// equal the CPU reference bit for bit.
#include <cstdint>
#include <vector>

#include "voxen/map/map.hpp"

namespace voxen {

// The layers a forgotten voxel resets: those of `map` the occupancy integrators write.
LayerSet decayedLayers(const OccupancyMap& map);

// The regions holding at least one observed voxel touched before `cut` (seconds), in no
// particular order. The map must have the touch-time layer.
std::vector<RegionKey> regionsToForget(const OccupancyMap& map, double cut);

// Forgets every observed voxel touched before `cut` in the given regions (all of the map's when
// `keys` is null); bumps each changed region's value and class stamps. Returns how many
// voxels were forgotten.
uint64_t forgetOutdatedVoxels(OccupancyMap& map, double cut, const std::vector<RegionKey>* keys = nullptr);

}  // namespace voxen

#pragma once
// Exports of a map's clearance layer (voxen clearance): the observed voxels' centres with
// their clearance as a PLY property, and a heat-map slice with a colour bar as a PNG.
#include <cstdint>
#include <filesystem>

#include "voxen/io/map_export.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// Binary little-endian PLY: one vertex per observed voxel (x y z float or double, `property
// float clearance`: metres, 0 on obstacles, -1 for none within range). Written atomically.
// Returns the number of points. Throws Error when the map has no clearance layer.
uint64_t exportClearancePly(const OccupancyMap& map, const std::filesystem::path& path, bool doublePrecision = false);

// The clearance of voxel layer z as colours: obstacles black, unobserved light grey, none
// within range white, and distances from red (0) through yellow and green to blue (the
// range), with a colour bar (0 at the bottom, the range at the top, both labelled) to the
// right. `range` (metres) is the colour scale's top: the largest clearance in the slice
// when 0. Returns the slice's bounds and counts (as renderSlice). Throws Error when the map
// has no clearance layer or layer z has no observed voxel.
SliceImage exportClearancePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale = 1,
                              double range = 0.0);

// The heat-map colour of t in [0, 1] (0 red, 1 blue).
void clearanceColour(double t, uint8_t rgb[3]);

}  // namespace voxen

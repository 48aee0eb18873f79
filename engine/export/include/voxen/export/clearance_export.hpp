#pragma once
// Exports of a map's clearance layer (voxen clearance): the observed voxels' centres with
// their clearance as a PLY property, and a heat-map slice with a colour bar as a PNG.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "voxen/export/map_export.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// Binary little-endian PLY: one vertex per observed voxel (x y z float or double, `property
// float clearance`: metres, 0 on obstacles, -1 for none within range). Written atomically.
// Returns the number of points. Throws Error when the map has no clearance layer.
uint64_t exportClearancePly(const OccupancyMap& map, const std::filesystem::path& path, bool doublePrecision = false);

// The clearance of voxel layer z as colours over the map's extent (as renderSlice: the same
// ground at every height): obstacles black, unobserved light grey (kSliceUnknownRgb, as every
// slice draws unknown), none within range white, and distances from red (0) through yellow
// and green to blue (the scale's top). `range` (metres) is the scale's top: the largest
// clearance of the slice's observed voxels when 0. `voxen export --clearance-png` and
// `--layer clearance --slice-png` both draw this.
struct ClearanceImage {
  SliceImage slice;  // the plot's pixels (slice.rgb), bounds, scale and, once written, its place
  double top = 0.0;  // the colour scale's top, metres
  uint64_t obstacles = 0, noneInRange = 0, distances = 0;  // observed voxels of each kind drawn
};
ClearanceImage renderClearanceImage(const OccupancyMap& map, int32_t z, uint32_t scale = 0, double range = 0.0);

// renderClearanceImage as a picture that can be read and placed (exportSlicePng's frame:
// metre axes, a title naming the map and the heights, a colour bar in metres and swatches,
// and the map_server YAML beside it), written atomically. Throws Error when the map has no
// clearance layer or layer z has no observed voxel.
ClearanceImage exportClearancePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale = 0,
                                  double range = 0.0, const std::string& mapName = {});

// The heat-map colour of t in [0, 1] (0 red, 1 blue).
void clearanceColour(double t, uint8_t rgb[3]);

}  // namespace voxen

#pragma once
// Exports of a map's clearance layer (voxen clearance): the observed voxels' centres with
// their clearance as a PLY property, and a heat-map slice with a colour bar as a PNG.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "voxen/io/map_export.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// Binary little-endian PLY: one vertex per observed voxel (x y z float or double, `property
// float clearance`: metres, 0 on obstacles, -1 for none within range). Written atomically.
// Returns the number of points. Throws Error when the map has no clearance layer.
uint64_t exportClearancePly(const OccupancyMap& map, const std::filesystem::path& path, bool doublePrecision = false);

// The colour bar's scale: its top (metres) and the labelled ticks, 0 first, ascending, the
// top last, with the image rows they are drawn at (and the labels' first column).
struct ClearanceLegend {
  double top = 0.0;
  std::vector<double> ticks;
  std::vector<uint32_t> tickRows;
  uint32_t labelX = 0;
};

// Round ticks (1, 2, 2.5 or 5 times a power of ten apart, 4 to 7 intervals) from 0 to `top`,
// on a bar from row barTop (the top) to barBottom (0), labels labelHeight rows tall.
ClearanceLegend clearanceLegend(double top, uint32_t barTop, uint32_t barBottom, uint32_t labelHeight);

// The clearance of voxel layer z as colours: obstacles black, unobserved light grey, none
// within range white, and distances from red (0) through yellow and green to blue (the
// scale's top), with a colour bar to the right (0 at the bottom, the top above, ticks
// labelled in metres). `range` (metres) is the scale's top: the largest clearance drawn (of
// the observed voxels of the slice) when 0.
struct ClearanceImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // rows top to bottom
  SliceImage slice;          // the slice's bounds and counts (as renderSlice)
  ClearanceLegend legend;
};
ClearanceImage renderClearanceImage(const OccupancyMap& map, int32_t z, uint32_t scale = 1, double range = 0.0);

// renderClearanceImage written as a PNG (atomically). Returns the slice's bounds and counts;
// `legend`, when given, gets the scale. Throws Error when the map has no clearance layer or
// layer z has no observed voxel.
SliceImage exportClearancePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale = 1,
                              double range = 0.0, ClearanceLegend* legend = nullptr);

// The heat-map colour of t in [0, 1] (0 red, 1 blue).
void clearanceColour(double t, uint8_t rgb[3]);

}  // namespace voxen

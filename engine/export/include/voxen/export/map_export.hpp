#pragma once
// Exports of an occupancy map for other tools: the occupied voxel centres as a PLY point
// cloud, and a horizontal slice as a PNG image (free, occupied and unknown in three colours,
// with a legend). Every export stays finite whatever the map holds: a voxel with a NaN or
// infinite value (only a map built through the API can hold one; loading refuses them) is
// left out and counted.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "voxen/map/decimal_voxel.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

struct PlyOptions {
  bool withValue = false;        // add `property float value`: the voxel's log-odds
  bool doublePrecision = false;  // x y z as double (default float, enough for maps within ~1 km of the origin at mm)
};

// Binary little-endian PLY with one vertex per occupied voxel centre (metres), regions in
// ascending key order and voxels x fastest within each. Written atomically. Returns the
// number of points.
uint64_t exportOccupiedPly(const OccupancyMap& map, const std::filesystem::path& path, const PlyOptions& options = {});

// Slice colours (RGB). Unobserved is a light grey that ROS map_server reads as unknown (its
// occupancy 1 - 170/255 = 0.33 lies between free_thresh 0.196 and occupied_thresh 0.65),
// occupied red reads as occupied (0.74) and free white as free.
inline constexpr uint8_t kSliceUnknownRgb[3] = {170, 170, 170};  // light grey
inline constexpr uint8_t kSliceFreeRgb[3] = {255, 255, 255};     // white
inline constexpr uint8_t kSliceOccupiedRgb[3] = {200, 0, 0};     // red

// A horizontal slice through one layer of voxels. The image covers the XY bounding box of
// the voxels observed anywhere in the map (every height: so slices of one map at two heights
// overlay pixel for pixel), `scale` x `scale` pixels per voxel, x to the right and y upwards:
// the top-left pixel is voxel (minX, maxY), the bottom-right (maxX, minY).
struct SliceImage {
  int32_t z = 0;                 // voxel layer
  int32_t minX = 0, minY = 0;    // voxel bounds covered (inclusive)
  int32_t maxX = 0, maxY = 0;
  uint32_t scale = 1;
  uint32_t width = 0, height = 0;  // pixels: (maxX - minX + 1) * scale, (maxY - minY + 1) * scale
  std::vector<uint8_t> rgb;        // rows top to bottom, 3 bytes per pixel
  uint64_t occupied = 0, free = 0;  // voxels of each class in the slice
  uint64_t nonFinite = 0;           // voxels with NaN or -inf occupancy: drawn as unknown
  // Set by the exports that write a picture: where the slice's top-left pixel lies in it,
  // the picture's size, and the map_server YAML written beside it (empty: none, for a stream).
  uint32_t pictureLeft = 0, pictureTop = 0, pictureWidth = 0, pictureHeight = 0;
  std::filesystem::path yaml;
};

// What an export wrote, and what it left out because the map held a non-finite value there.
struct ExportCounts {
  uint64_t written = 0;
  uint64_t nonFinite = 0;
};

// Pixels per voxel edge when none is asked for: enough for about 800 pixels on the picture's
// longer side (ceil(800 / longer voxels)), at most 32, at least 1.
uint32_t autoSliceScale(uint64_t voxelsWide, uint64_t voxelsHigh);

// `scale` 0: autoSliceScale. Throws Error when no voxel of layer `z` is observed (the
// message gives the layers that are) or the scale is over 1024.
SliceImage renderSlice(const OccupancyMap& map, int32_t z, uint32_t scale = 1);

// The voxel layer holding height `metres` as written (0.3 m at 0.1 m per voxel: layer 3, the
// 0.3-0.4 m layer; voxen/map/decimal_voxel.hpp). Callers check the height is within the map's reach.
inline int32_t sliceLayerAt(const OccupancyMap& map, double metres) {
  return int32_t(std::clamp<int64_t>(voxelIndexOfDecimal(metres, map.model().resolution), INT32_MIN, INT32_MAX));
}

// renderSlice (scale 0: automatic), written as a picture (PNG) that can be read and placed:
// the slice framed by metre axes in world coordinates (ticks 1, 2 or 5 x 10^n m apart), a
// title naming the map (`mapName`; empty: none), the layer and its heights, and a legend
// below (a swatch for each class with its count); beside it OUT.yaml in ROS map_server's form
// (resolution: metres per pixel; origin: the picture's lower-left corner in the world). Both
// are written atomically. Returns the slice (bounds, counts, the scale used, its place in the
// picture, the YAML's path).
SliceImage exportSlicePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale = 0,
                          const std::string& mapName = {});

}  // namespace voxen

#pragma once
// Exports of an occupancy map for other tools: the occupied voxel centres as a PLY point
// cloud, and a horizontal slice as a PNG image (free, occupied and unknown in three colours,
// with a legend). Every export stays finite whatever the map holds: a voxel with a NaN or
// infinite value (only a map built through the API can hold one; loading refuses them) is
// left out and counted.
#include <cstdint>
#include <filesystem>
#include <vector>

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

// Slice colours (RGB).
inline constexpr uint8_t kSliceUnknownRgb[3] = {64, 64, 64};     // dark grey
inline constexpr uint8_t kSliceFreeRgb[3] = {255, 255, 255};     // white
inline constexpr uint8_t kSliceOccupiedRgb[3] = {200, 0, 0};     // red

// A horizontal slice through one layer of voxels. The image covers the XY bounding box of
// the voxels observed in that layer, `scale` x `scale` pixels per voxel, x to the right and
// y upwards: the top-left pixel is voxel (minX, maxY), the bottom-right (maxX, minY).
struct SliceImage {
  int32_t z = 0;                 // voxel layer
  int32_t minX = 0, minY = 0;    // voxel bounds covered (inclusive)
  int32_t maxX = 0, maxY = 0;
  uint32_t scale = 1;
  uint32_t width = 0, height = 0;  // pixels: (maxX - minX + 1) * scale, (maxY - minY + 1) * scale
  std::vector<uint8_t> rgb;        // rows top to bottom, 3 bytes per pixel
  uint64_t occupied = 0, free = 0;  // voxels of each class in the slice
  uint64_t nonFinite = 0;           // voxels with NaN or -inf occupancy: drawn as unknown
};

// What an export wrote, and what it left out because the map held a non-finite value there.
struct ExportCounts {
  uint64_t written = 0;
  uint64_t nonFinite = 0;
};

// Pixels per voxel edge when none is asked for: enough for a slice about 800 pixels wide, at
// most 32, and at most 4096 pixels on the slice's longer side (at least 1).
uint32_t autoSliceScale(uint64_t voxelsWide, uint64_t voxelsHigh);

// `scale` 0: autoSliceScale. Throws Error when no voxel of layer `z` is observed (the
// message gives the layers that are) or the scale is over 1024.
SliceImage renderSlice(const OccupancyMap& map, int32_t z, uint32_t scale = 1);

// The voxel layer holding height `metres`.
inline int32_t sliceLayerAt(const OccupancyMap& map, double metres) { return map.voxelAt({0.0, 0.0, metres}).z; }

// renderSlice (scale 0: automatic), then writePng of the slice with a legend below it: the
// height, a swatch for each class (occupied, free, unobserved) with its count, and a scale
// bar in metres. The slice keeps its place at the image's top-left corner. Returns the slice
// (bounds, counts, the scale used) it wrote.
SliceImage exportSlicePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale = 0);

}  // namespace voxen

#pragma once
// A heightmap's own file (voxen heightmap --output HM.vxh), and its arrays for NumPy.
//
// The file: "VXHEIGHT" and a format version (uint32), then the grid (gridX, gridY, width,
// height, zLow, zHigh as int32/uint32, the resolution as float64, levels as uint32), the
// options it was made with (robot height, max slope, max step, clearance margin as float64,
// virtual surfaces as uint32), then the cells (heightmap_shared.h's HeightmapCell, 40 bytes,
// level-major) and the column flags (uint32 per column), all little-endian. Written atomically
// (voxen/atomic_file): a failed save leaves an existing file as it was.
#include <filesystem>
#include <string>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

void saveHeightmap(const Heightmap& heightmap, const std::filesystem::path& path);
// Throws Error naming the file and what is wrong with it (not a heightmap, another version,
// truncated, sizes that do not add up).
Heightmap loadHeightmap(const std::filesystem::path& path);
// Whether the file starts as a heightmap file does (for commands that take maps or heightmaps).
bool isHeightmapFile(const std::filesystem::path& path);

// PREFIX-height.npy, PREFIX-clearance.npy, PREFIX-slope.npy, PREFIX-cost.npy: float32 arrays
// of shape (levels, rows, columns), row = y, column = x; metres (world z for heights),
// degrees, and the cost (0..100, 254 lethal, 255 unknown); NaN where a level is absent (the
// cost: 255), +inf clearance where nothing lies above. And PREFIX.json: origin_x and origin_y
// (world metres of cell (0, 0)'s lower corner), resolution, width, height, levels. Returns
// the files written.
std::vector<std::filesystem::path> writeHeightmapArrays(const Heightmap& heightmap, const std::string& prefix);

}  // namespace voxen

#pragma once
// An ESDF slice of a 3D map (nvblox's slice, for drones and robots of any height): per 2D
// column (x, y), the Euclidean distance in metres to the nearest obstacle column within a
// height band, where an obstacle column holds an occupied voxel whose centre z lies in
// [zMin, zMax] (compared on the decimals as written: voxen/map/decimal_voxel.hpp).
//
//   EsdfSlice slice = esdfSlice(map, {.zMin = 0.5, .zMax = 1.5, .scheduler = &context.scheduler()});
//   float d = slice.metres(slice.width / 2, slice.height / 2);   // +inf: no obstacle in the band
//   exportEsdfSlicePgm(slice, "slice.yaml");                      // slice.pgm + slice.yaml (map_server)
//   exportEsdfSlicePng(slice, "slice.png", "office.vxm");         // a picture with a colour bar
//   writeEsdfSliceArrays(slice, "slice");                         // slice-distance.npy + slice.json
//
// Unknown space: by default an unobserved voxel is not an obstacle (nvblox's choice: the
// slice is the distance to what was seen). With unknownAsObstacle, a column with any
// unobserved voxel centred in the band is an obstacle too (the cautious reading for a drone),
// and so is a column of the grid the map has no region for; the band counts only the heights
// between the map's lowest and highest observed voxels (above and below them nothing was seen
// anywhere, and every column would be an obstacle).
// The grid spans the x and y of the map's observed voxels at every height (the extent every
// picture of the map shares, voxen/export/map_export.hpp), so a slice overlays the map's other
// pictures cell for cell. The distance is between cell centres, from the exact distance
// transform (voxen/distance/distance_transform_2d.hpp) on the GPU of `scheduler`, or the CPU
// reference without one: the same numbers either way.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "voxen/distance/distance_transform_2d.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

struct EsdfSliceOptions {
  double zMin = 0.0, zMax = 0.0;   // metres: the band (voxel centres within it, faces included)
  double maxDistance = 2.0;        // metres: the PGM's scale top (254); farther reads as 254 too
  bool unknownAsObstacle = false;  // unobserved voxels in the band are obstacles
  Scheduler* scheduler = nullptr;  // the GPU that runs the distance transform; null: the CPU reference
};

struct EsdfSlice {
  EsdfSliceOptions options;      // as given (scheduler cleared)
  int32_t gridX = 0, gridY = 0;  // voxel x and y of cell (0, 0)
  uint32_t width = 0, height = 0;
  double resolution = 0.0;
  // The band's voxel layers (centres (k + 0.5) x resolution in [zMin, zMax]) within the map's
  // observed heights: unknownAsObstacle counts unobserved voxels between these only.
  int32_t zFirst = 0, zLast = 0;
  std::vector<uint8_t> obstacle;   // per cell, row-major (y * width + x, row 0 = the lowest y): 1 obstacle
  std::vector<uint64_t> squared;   // squared distance in cells to the nearest obstacle; kNoObstacle: none in the band
  uint64_t obstacles = 0;          // obstacle cells
  uint64_t unknownObstacles = 0;   // of them, obstacles only because of unknown voxels (unknownAsObstacle)

  double originX() const { return gridX * resolution; }  // world x of cell (0, 0)'s lower-left corner
  double originY() const { return gridY * resolution; }
  // Metres to the nearest obstacle column's centre; +inf when the band holds no obstacle.
  float metres(size_t index) const {
    return squared[index] == kNoObstacle ? std::numeric_limits<float>::infinity()
                                         : float(std::sqrt(double(squared[index])) * resolution);
  }
  float metres(uint32_t x, uint32_t y) const { return metres(size_t(y) * width + x); }
};

// Throws SettingError for a band that cannot make a slice: field "EsdfSliceOptions::zMin" (not
// finite, above zMax, or above the map's observed voxels), "EsdfSliceOptions::zMax" (not
// finite, below the map's observed voxels, or a band holding no voxel centre) or
// "EsdfSliceOptions::maxDistance" (not finite and > 0); Error for a map without an observed
// voxel. A band without an obstacle is no error: every cell is kNoObstacle (obstacles == 0).
EsdfSlice esdfSlice(const OccupancyMap& map, const EsdfSliceOptions& options);

// Where exportEsdfSlicePgm writes for `out`: OUT.pgm and OUT.yaml beside it, from either name
// (any other name is the YAML, its image nav2ImagePath's).
struct EsdfSliceFiles {
  std::filesystem::path yaml, image;
};
EsdfSliceFiles esdfSliceFiles(const std::filesystem::path& out);

// The PGM's pixels in grid order (row 0 = the lowest y): 0 on obstacles, else
// round(254 x min(d, maxDistance) / maxDistance); 254 when the band holds no obstacle.
std::vector<uint8_t> esdfSlicePixels(const EsdfSlice& slice);

// Writes the P5 PGM (rows top first) and the map_server YAML beside it (image, mode scale,
// resolution, origin, negate 0, occupied_thresh 0.999 so that only obstacle pixels load as
// occupied, free_thresh 0.196), plus the slice's own keys: max_distance, metres_per_level,
// z_min, z_max, unknown_as_obstacle. Both files atomically, once both are complete.
EsdfSliceFiles exportEsdfSlicePgm(const EsdfSlice& slice, const std::filesystem::path& out);

struct EsdfSlicePicture {
  uint32_t scale = 0;              // pixels per cell drawn
  std::filesystem::path yaml;      // the map_server YAML beside it (empty: none)
};

// The slice as a picture a person reads: distances on the clearance pictures' ramp (red at
// the obstacles to blue at maxDistance and beyond), obstacle columns black, with a colour bar,
// metre axes, a title (`mapName`'s, when given) and the YAML that places it
// (voxen/export/map_export.hpp's pictures). `scale` pixels per cell; 0: about 800 pixels on the
// longer side.
EsdfSlicePicture exportEsdfSlicePng(const EsdfSlice& slice, const std::filesystem::path& png, const std::string& mapName = "",
                                    uint32_t scale = 0);

// PREFIX-distance.npy: float32 (rows, columns), row = y from the lowest, metres, +inf where the
// band holds no obstacle; PREFIX-obstacle.npy: uint8, 1 on obstacle columns; PREFIX.json:
// origin_x, origin_y, resolution, width, height, z_min, z_max, z_first, z_last,
// unknown_as_obstacle, obstacles. Returns the files written.
std::vector<std::filesystem::path> writeEsdfSliceArrays(const EsdfSlice& slice, const std::string& prefix);

}  // namespace voxen

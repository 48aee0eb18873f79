#pragma once
// A heightmap's 2D outputs (voxen/heightmap/heightmap.hpp): the maps navigation stacks load and
// pictures a person reads.
//
//   exportNav2Map(hm, "site.yaml", {});             // site.pgm + site.yaml, map_server trinary
//   exportCostmap(hm, "cost.yaml", {.inflationRadius = 0.5});   // cost.pgm + cost.yaml, raw
//   exportHeightPng(hm, "height.png", {});           // and height.yaml beside it
//
// Each output is one level of the heightmap (`level`, default 0: the lowest surface of each
// column, "the" ground). A column without that level is lethal when it has no level at all
// and holds an occupied voxel (an obstacle with less room above it than the robot needs: a
// wall up to the ceiling, a shelf), and unknown otherwise (nothing seen there).
//
// The map_server conventions, checked against nav2_map_server's map_io.cpp (loadMapFromFile,
// tryWriteMapToFile) and ROS 1 map_server's documentation:
// - the image's row 0 is the top of the map (the largest y); the YAML's origin is the world
//   position of the lower-left pixel's lower-left corner; occ = (255 - pixel) / 255 with
//   negate 0.
// - trinary (--nav2): free 254, occupied 0, unknown 205, as map_saver writes them, with
//   occupied_thresh 0.65 and free_thresh 0.196. Not 0.25: the loader calls a pixel free when
//   occ < free_thresh, and 205's occ is 50/255 = 0.1961, so under 0.25 every unknown cell
//   would load as free (navigation2 PR #5278 fixed map_saver to write 0.196 for this reason).
// - raw (--costmap): the pixel is the OccupancyGrid value itself, 0..100, and a pixel above
//   100 loads as unknown (-1); Nav2's StaticLayer with trinary_costmap: false turns a value v
//   into the cost v * 254 / 100 (v >= its lethal_cost_threshold, 100 by default: lethal).
//   Scale mode cannot carry unknown in a PGM (it takes unknown from the alpha channel).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "voxen/distance/distance_transform_2d.hpp"
#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

// Per cell of one level, row-major (y * width + x, row 0 = the lowest y): the cell's cost
// (0..100), gpu::kCostLethal or gpu::kCostUnknown, with the rule above for absent levels.
// Throws SettingError (field "level") for a level the heightmap does not keep.
std::vector<uint8_t> levelCosts(const Heightmap& heightmap, uint32_t level);

// OUT.yaml -> OUT.pgm (OUT.pgm -> OUT.pgm.pgm would clash; any other name gets .pgm).
std::filesystem::path nav2ImagePath(const std::filesystem::path& yaml);

struct Nav2MapOptions {
  uint32_t level = 0;
  std::optional<uint32_t> maxCost;  // costs above it count as occupied (--nav2-max-cost), 0..100
};

struct Nav2MapCounts {
  uint64_t free = 0, occupied = 0, unknown = 0;
};

// The PGM's pixels (width x height, rows top first): 254 free, 0 occupied, 205 unknown.
std::vector<uint8_t> nav2TrinaryPixels(const Heightmap& heightmap, const Nav2MapOptions& options, Nav2MapCounts* counts = nullptr);

// Writes nav2ImagePath(yaml) (binary P5 PGM) and `yaml` (image, mode trinary, resolution,
// origin, negate, occupied_thresh, free_thresh), both atomically and only once both are
// complete: a failed export leaves existing files as they were.
Nav2MapCounts exportNav2Map(const Heightmap& heightmap, const std::filesystem::path& yaml, const Nav2MapOptions& options);

struct CostmapOptions {
  uint32_t level = 0;
  double inflationRadius = 0.0;   // metres (--inflation): cells farther from a lethal cell get no inflation
  double inscribedRadius = 0.0;   // metres: within it the inflation is the inscribed value (99)
  double costScaling = 3.0;       // per metre: the exponential decay beyond the inscribed radius
  // Where the distance to the nearest lethal cell is computed: this scheduler's GPU
  // (voxen/distance/distance_transform_2d.hpp), or the CPU reference when null. The values
  // are the same byte for byte either way.
  Scheduler* scheduler = nullptr;
};

// The costmap's values (OccupancyGrid values, row-major, row 0 = the lowest y):
//   lethal cell 100; unknown 255; otherwise the larger of the traversal cost scaled into
//   0..98 (cost * 98 / 100) and the inflation: 99 within the inscribed radius of a lethal
//   cell, round(98 * exp(-costScaling * (d - inscribedRadius))) for d up to inflationRadius
//   (d: the distance between cell centres in metres, from squaredDistanceTransform2D), nothing beyond.
// As Nav2's inflation layer (253 inscribed, 252 * exp(-k (d - r)) beyond) on the 0..100 scale
// map_server and StaticLayer use (99 reads back as 251, 98 as 248, 100 as lethal 254).
inline constexpr uint8_t kCostmapLethal = 100, kCostmapInscribed = 99, kCostmapUnknown = 255;
std::vector<uint8_t> costmapValues(const Heightmap& heightmap, const CostmapOptions& options);

struct CostmapCounts {
  uint64_t lethal = 0, inflated = 0, unknown = 0, cells = 0;
};

// Writes nav2ImagePath(yaml) (P5 PGM of costmapValues, rows top first) and `yaml` with
// mode: raw, as exportNav2Map does. Throws SettingError (field "inflationRadius",
// "inscribedRadius" or "costScaling") for a negative or non-finite setting.
CostmapCounts exportCostmap(const Heightmap& heightmap, const std::filesystem::path& yaml, const CostmapOptions& options);

struct HeightmapPictureOptions {
  uint32_t level = 0;
  std::string name;   // the heightmap's name in the title (its file name); empty: none
  uint32_t scale = 0; // pixels per cell; 0: about 800 pixels on the longer side (autoSliceScale)
};

struct HeightmapPicture {
  uint64_t drawn = 0, lethal = 0, unknown = 0;  // cells
  double lo = 0.0, hi = 0.0;                     // the colour bar's range
  std::filesystem::path yaml;                    // the map_server YAML beside it (empty: none)
};

// The level's height (metres, a heat map with a colour bar) and its cost (0..100, with
// lethal black and unknown grey), framed with metre axes and a legend, as every Voxen map
// picture (and the YAML that places it beside it).
HeightmapPicture exportHeightPng(const Heightmap& heightmap, const std::filesystem::path& png, const HeightmapPictureOptions& options);
HeightmapPicture exportCostPng(const Heightmap& heightmap, const std::filesystem::path& png, const HeightmapPictureOptions& options);

}  // namespace voxen

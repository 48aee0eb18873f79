#pragma once
// A heightmap kept current while its map changes (a mapping run, a robot's live map):
// update() recomputes only the region columns whose regions changed since the last update
// (a voxel entered or left the occupied or free class, a voxel mean moved, a region was made,
// dropped or paged out) and the neighbour pass (slopes, steps, costs) over their cells and
// the cells beside them; every other cell is kept. The cells equal computeHeightmap's on the
// map as it is then, bit for bit (tests/heightmap/test_heightmap_tracker.cpp checks this after
// random changes, growth and shrinking included).
//
//   voxen::HeightmapTracker tracker(options);               // options as computeHeightmap's
//   for (const auto& scan : scans) {
//     integrator.integrate(scan);
//     const voxen::HeightmapUpdate u = tracker.update(map);  // the changed columns only
//     plan(tracker.heightmap());
//   }
//
// When the grid changes (the map grew or shrank past its old extent, in x or y), the cells of
// the old grid that the new one keeps are moved over, and the columns that are new are computed.
// A different map (another object, or one whose change counter went back) is computed whole,
// and so is one where more than half the grid's region columns changed: by `computeWhole`
// (computeHeightmap by default; a Mapper passes its GPU's computeHeightmapGpu, whose cells are
// the same). A map replaced in place (loaded anew into the same object) needs reset().
//
// Threads: one thread at a time calls update(), and the map must not change during it;
// heightmap() may be read by that thread, or by others between its updates (it changes only
// inside update()).
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

struct HeightmapUpdate {
  bool whole = false;  // every column was computed (the first update, another map, most columns changed)
  bool gridChanged = false;      // the grid grew or shrank since the last update
  uint64_t regionColumns = 0;    // region columns whose cells were computed again
  uint64_t neighbourCells = 0;   // cells (per level) the neighbour pass went over
  double ms = 0;                 // wall time of the update
};

// Computes a whole heightmap: computeHeightmap, or a GPU's computeHeightmapGpu bound to its scheduler.
using HeightmapCompute = std::function<Heightmap(const OccupancyMap&, const HeightmapOptions&)>;

class HeightmapTracker {
 public:
  // Throws SettingError naming HeightmapOptions' field when the options cannot work for the
  // map (checked at the first update, which knows the map's resolution).
  explicit HeightmapTracker(HeightmapOptions options = {}, HeightmapCompute computeWhole = computeHeightmap);

  // Brings the heightmap up to date with `map` (CPU, on the machine's cores). Throws as
  // computeHeightmap does (a map with no occupied voxel, a box outside the map); the
  // heightmap is then left as it was, and the next update computes it whole.
  HeightmapUpdate update(const OccupancyMap& map);

  // The heightmap as of the last update (an empty one before the first).
  const Heightmap& heightmap() const { return heightmap_; }
  const HeightmapOptions& options() const { return options_; }
  // The next update computes every column.
  void reset() { map_ = nullptr; }

 private:
  // The incremental update: the dirty region columns (and, when the grid changed, the new ones).
  void updateColumns(const OccupancyMap& map, const HeightmapGrid& grid, std::unordered_set<RegionKey, RegionKeyHash>& dirty,
                     HeightmapUpdate& result);

  HeightmapOptions options_;
  HeightmapCompute computeWhole_;
  Heightmap heightmap_;
  const OccupancyMap* map_ = nullptr;  // the map of the last update (identity only)
  uint64_t counter_ = 0;               // its change counter then
  // Per region column (z unused) of the grid, how many of its regions lay in the band: a
  // count that changes means regions were dropped or paged out (made ones carry new stamps).
  std::unordered_map<RegionKey, uint32_t, RegionKeyHash> regionCounts_;
};

}  // namespace voxen

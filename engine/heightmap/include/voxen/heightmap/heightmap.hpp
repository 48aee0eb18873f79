#pragma once
// The ground a robot drives on: per 2D column (x, y) of a map, every surface a robot of a
// given height can stand on, as up to kMaxHeightmapLevels levels ordered by height (a bridge,
// a table or a second floor give several), with the room above each, the slope and the steps
// to the four neighbours, and a traversability cost (0..100, lethal, unknown).
//
//   voxen::HeightmapOptions options;                        // robot 0.8 m, 4 levels, 30 deg, 0.2 m
//   voxen::Heightmap cpu = voxen::computeHeightmap(map, options);                   // CPU reference
//   voxen::Heightmap gpu = voxen::computeHeightmapGpu(scheduler, map, options);     // the same cells
//   float z = gpu.heightMetres(0, x, y);                   // the lowest level's height, or NaN
//
// A surface is an occupied voxel whose voxel above is not occupied (with virtualSurfaces also
// an unknown voxel whose voxel above is observed free: where a sensor could not see the ground,
// as OHM's virtual surfaces). Its room is the count of voxels above it up to the next occupied
// one (free or unknown alike; kOpenAbove when none lies in the band); a level is a surface with
// room >= the robot's height in voxels (rounded up). Heights are the voxel's centre, or its
// voxel mean's z where the map has that layer. The cells are integers (heightmap_shared.h), so
// the GPU's equal the CPU's bit for bit; metres and degrees are made when read.
//
// Threads: the functions keep no state; a Heightmap is a value (read it from several threads
// at once; write it from one).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/gpu/heightmap/heightmap_shared.h"
#include "voxen/map/map.hpp"

namespace voxen {

class Scheduler;

struct HeightmapBox {
  glm::dvec3 min{0.0}, max{0.0};  // metres; the columns and voxels whose centres lie inside
  bool operator==(const HeightmapBox&) const = default;
};

struct HeightmapOptions {
  double robotHeight = 0.8;      // metres of room a level needs above its surface (--robot-height)
  uint32_t levels = 4;           // levels kept per column, the lowest ones (--levels), 1..kMaxHeightmapLevels
  bool virtualSurfaces = false;  // unknown voxels under observed free ones are surfaces too
  double maxSlopeDegrees = 30.0;  // steeper is lethal (--max-slope)
  double maxStep = 0.2;           // metres: a larger step to a neighbour is lethal (--max-step)
  // Room beyond the robot's height below which the cost rises toward 100 (0: no clearance
  // cost); metres, by default half the robot's height.
  std::optional<double> clearanceMargin;
  std::optional<HeightmapBox> box;  // only this part of the map (--bbox); default: all of it
  // Throws SettingError naming the field (HeightmapOptions::robotHeight, ...) for a value out of range;
  // `resolution` is the map's (a robot lower than one voxel is refused).
  void validate(double resolution) const;
  bool operator==(const HeightmapOptions&) const = default;
};

// The grid: columns x [gridX, gridX + width) and rows y [gridY, gridY + height) in voxels,
// z band [zLow, zHigh].
struct HeightmapGrid {
  int32_t gridX = 0, gridY = 0;
  uint32_t width = 0, height = 0;
  int32_t zLow = 0, zHigh = -1;
  double resolution = 0.1;
  uint32_t levels = 0;
  bool operator==(const HeightmapGrid&) const = default;
};

class Heightmap {
 public:
  Heightmap() = default;
  Heightmap(HeightmapGrid grid, HeightmapOptions options);

  const HeightmapGrid& grid() const { return grid_; }
  const HeightmapOptions& options() const { return options_; }
  uint32_t width() const { return grid_.width; }
  uint32_t height() const { return grid_.height; }
  uint32_t levels() const { return grid_.levels; }
  double resolution() const { return grid_.resolution; }
  // The world position (metres) of column x's and row y's lower corner.
  double columnMinX(uint32_t x) const { return (double(grid_.gridX) + x) * grid_.resolution; }
  double rowMinY(uint32_t y) const { return (double(grid_.gridY) + y) * grid_.resolution; }

  // Cell (level, x, y), level-major as the GPU writes them.
  const gpu::HeightmapCell& cell(uint32_t level, uint32_t x, uint32_t y) const { return cells_[index(level, x, y)]; }
  gpu::HeightmapCell& cell(uint32_t level, uint32_t x, uint32_t y) { return cells_[index(level, x, y)]; }
  bool present(uint32_t level, uint32_t x, uint32_t y) const { return (cell(level, x, y).flags & gpu::kLevelPresent) != 0; }
  // What the column's voxels hold (gpu::kColumnOccupied, gpu::kColumnFree).
  uint32_t columnFlags(uint32_t x, uint32_t y) const { return columnFlags_[size_t(y) * grid_.width + x]; }

  // Metres and degrees, NaN where the level is absent.
  double heightMetres(uint32_t level, uint32_t x, uint32_t y) const;
  double clearanceMetres(uint32_t level, uint32_t x, uint32_t y) const;  // +inf: nothing above
  double slopeDegrees(uint32_t level, uint32_t x, uint32_t y) const;

  std::vector<gpu::HeightmapCell>& cells() { return cells_; }
  const std::vector<gpu::HeightmapCell>& cells() const { return cells_; }
  std::vector<uint32_t>& columnFlags() { return columnFlags_; }
  const std::vector<uint32_t>& columnFlags() const { return columnFlags_; }

 private:
  size_t index(uint32_t level, uint32_t x, uint32_t y) const {
    return (size_t(level) * grid_.height + y) * grid_.width + x;
  }
  HeightmapGrid grid_;
  HeightmapOptions options_;
  std::vector<gpu::HeightmapCell> cells_;
  std::vector<uint32_t> columnFlags_;
};

// The grid a heightmap of `map` covers under `options` (its box, else every region's voxels).
// Throws Error when the map has no occupied voxel, and SettingError naming
// HeightmapOptions::box when the box lies outside the map, holds no occupied voxel, or makes
// a z band deeper than kMaxHeightmapBandVoxels.
HeightmapGrid heightmapGrid(const OccupancyMap& map, const HeightmapOptions& options);
inline constexpr int32_t kMaxHeightmapBandVoxels = 8192;

// The CPU reference.
Heightmap computeHeightmap(const OccupancyMap& map, const HeightmapOptions& options);

struct GpuHeightmapStats {
  double gpuMs = 0;      // the passes' GPU time (timestamps)
  uint64_t chunks = 0;   // column-pass dispatches (groups of region columns that fit the cache)
};

// The same cells on the GPU: the map's regions of the grid go through a region cache of
// `cacheBytes` (a chunk of region columns at a time), then the neighbour pass runs over the
// whole grid. Throws SettingError (field "GpuHeightmap::cacheBytes") when one region
// column's regions do not fit the cache.
Heightmap computeHeightmapGpu(Scheduler& scheduler, const OccupancyMap& map, const HeightmapOptions& options,
                              uint64_t cacheBytes = 256ull << 20, GpuHeightmapStats* stats = nullptr);

// The push constants' derived integers, shared by both implementations.
struct HeightmapLimits {
  uint32_t requiredRoom = 0;       // voxels
  uint32_t marginRoom = 0;         // voxels
  int32_t maxStepUnits = 0;        // height units
  uint64_t maxGradientSquared = 0;  // (height units across two cells)^2
};
HeightmapLimits heightmapLimits(const HeightmapOptions& options, double resolution);

}  // namespace voxen

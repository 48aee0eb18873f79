#pragma once
// An occupancy map as a painter grid, so the painter's mesher and rasterizer draw the map
// a user built (`voxen render`): occupied voxels become density 1, everything else 0, on a
// dense lattice over the occupied voxels' bounds (optionally cropped), coloured by height.
// The grid's world frame is metres relative to `offset` (floats stay precise for maps far
// from the origin).
#include <cstdint>
#include <optional>
#include <string>

#include <glm/glm.hpp>

#include "voxen/map/map.hpp"
#include "voxen/painter/cpu_mesher.hpp"

namespace voxen {

struct MapGridOptions {
  std::optional<glm::dvec3> cropMin, cropMax;  // metres; voxels outside are left out
  uint64_t maxSamples = 64ull << 20;           // refuse larger grids (memory), naming the size
  uint64_t memoryBudgetBytes = UINT64_MAX;     // host bytes the grid may take, checked before allocating
  uint64_t heldBytes = 0;                      // already held (the map), counted with the grid
  std::string budgetHint;                      // ends the budget error's message
};

struct MapGrid {
  DensityGrid grid;
  glm::dvec3 offset{0.0};  // map metres of the grid frame's origin
  uint64_t occupiedVoxels = 0;
  glm::dvec3 occupiedMin{0.0}, occupiedMax{0.0};  // metres, bounds of the occupied voxels drawn
  // Where most of them are (1st to 99th percentile per axis), in the grid frame: what the
  // default camera frames, so a few far stray voxels do not shrink the picture.
  glm::dvec3 bulkMin{0.0}, bulkMax{0.0};
};

MapGrid gridFromOccupancy(const OccupancyMap& map, const MapGridOptions& options = {});

// RGBA8 colour for a height fraction in [0, 1] (blue, cyan, green, yellow, red).
uint32_t heightColor(float fraction);

}  // namespace voxen

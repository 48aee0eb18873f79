#pragma once
// Which level of each column is "the" ground, for outputs that show one level per cell (a
// Nav2 map, a costmap, pictures): the lowest level everywhere (the default), or the surface
// a robot standing at a seed point can reach, as OHM's heightmap seeds its ground.
//
//   voxen::GroundLevels ground = voxen::groundFromSeed(hm, {2.0, 1.5, 0.3});
//   int8_t level = ground.level(x, y);   // -1: the column has no level the seed reaches
//
// From the seed's column, the level whose height is nearest the seed's z, the fill spreads to
// the four neighbours over the same links the heightmap's steps measure (each neighbour's
// level nearest in height) where that step is at most the heightmap's largest step
// (HeightmapOptions::maxStep): up a ramp onto a bridge and across its deck, along the ground
// under it, never up a wall. A column reached at two levels (under and on a bridge) keeps
// the one reached in fewer steps from the seed. Columns the fill does not reach take
// `unreached` (by default -1: none, which the outputs show as unknown; 0: the lowest level).
//
// Threads: a pure function of its arguments; a GroundLevels is a value.
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

struct GroundLevels {
  uint32_t width = 0, height = 0;
  std::vector<int8_t> levels;  // per column, row-major (y * width + x): a level, or -1
  uint64_t reached = 0;        // columns the seed's fill reached
  int8_t level(uint32_t x, uint32_t y) const { return levels[size_t(y) * width + x]; }
};

// Level `level` (0: the lowest) everywhere it is present, -1 elsewhere.
GroundLevels groundAtLevel(const Heightmap& heightmap, uint32_t level);

// The fill from `seed` (metres). Throws SettingError naming "GroundSeed" when the seed lies
// outside the heightmap's columns or its column has no level.
GroundLevels groundFromSeed(const Heightmap& heightmap, const glm::dvec3& seed, int8_t unreached = -1);

// A one-level heightmap of the chosen level per column (absent where none): the cells as they
// are (their steps, slopes and costs were measured to the same nearest-level neighbours the
// fill follows) and the column flags, so every single-level output (Nav2 maps, costmaps,
// pictures) draws the ground of `ground` as level 0. A column the fill did not reach is then
// lethal where it holds an occupied voxel (the robot cannot get there), unknown elsewhere.
Heightmap groundLevelHeightmap(const Heightmap& heightmap, const GroundLevels& ground);

}  // namespace voxen

#pragma once
// `voxen export --bbox`: the exports hold only the voxels whose centre lies in the box. A
// store is read by region (every region the box touches), so a loaded part holds whole
// regions, up to a region's edge (3.2 m at 0.1 m) past the box on every side: cropToBox
// clears what lies outside before anything is written.
#include <cstdint>

#include <glm/vec3.hpp>

#include "voxen/map/map.hpp"

namespace voxen {

struct ExportBox {
  glm::dvec3 min{0.0}, max{0.0};  // metres, min <= max on every axis, faces included
};

// Every voxel whose centre ((k + 0.5) x resolution, compared on the decimals as written:
// voxen/map/decimal_voxel.hpp) lies outside the box goes back to its initial state
// (unobserved, every layer at its initial value); regions left with nothing inside are
// dropped. Returns the voxels cleared that were observed.
uint64_t cropToBox(OccupancyMap& map, const ExportBox& box);

}  // namespace voxen

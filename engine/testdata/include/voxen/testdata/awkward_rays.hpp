#pragma once
// Rays that stress a region or voxel walk: end points on region faces, edges and corners
// (exact multiples of the region's size in metres) and on voxel faces, axis-aligned and
// diagonal rays, negative coordinates, rays inside one voxel, all shifted `offset` metres
// away. Exactly where a walk's float rounding decides which face comes first, so where a GPU
// that rounds differently from the CPU reference shows it. Deterministic from the seed.
#include <glm/vec3.hpp>

#include <cstdint>
#include <vector>

#include "voxen/map/ray.hpp"

namespace voxen {

// voxelMetres: the voxel edge; the region's edge is regionVoxels voxels.
std::vector<Ray> awkwardRays(uint64_t seed, size_t count, const glm::dvec3& offset, double voxelMetres, int regionVoxels);

// Short rays all alike (sample = origin + `step`) from origins uniform in a cube of `extent`
// metres around the origin: a batch that touches as many distinct regions as it has rays.
std::vector<Ray> scatteredRays(uint64_t seed, size_t count, double extent, const glm::dvec3& step);

}  // namespace voxen

#pragma once
// The CPU reference of the brush phase (shaders/painter/brush.glsl), operation for
// operation, so tests can compare the GPU's grid with it exactly.
#include <optional>
#include <set>

#include "voxen/painter/painter.hpp"
#include "voxen/painter/cpu_mesher.hpp"

namespace voxen {

// The stroke's density at sample s (a clamped signed distance with a two-voxel ramp).
float brushValue(const DensityGrid& grid, const glm::ivec3& s, const glm::vec3& centre, float radius);
// The sample nearest a world point.
glm::ivec3 nearestSample(const DensityGrid& grid, const glm::vec3& p);
// Where the stroke lands: its origin, or with atRayHit the first half-voxel step along the
// ray whose nearest sample is inside the surface (nullopt: no hit).
std::optional<glm::vec3> strokeCentre(const DensityGrid& grid, const Stroke& stroke);
// Applies the stroke to the grid; returns the blocks it dirtied (block indices) and counts
// the changed samples into `changed`.
std::set<uint32_t> applyStroke(DensityGrid& grid, const Stroke& stroke, uint32_t* changed = nullptr);

}  // namespace voxen

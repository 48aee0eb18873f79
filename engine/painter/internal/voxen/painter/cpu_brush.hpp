#pragma once
// The CPU reference of the brush phase (shaders/painter/brush.glsl), operation for
// operation, so tests can compare the GPU's grid with it exactly.
#include <optional>
#include <set>

#include "voxen/painter/painter.hpp"
#include "voxen/painter/cpu_mesher.hpp"

namespace voxen {

// A stroke's set-up, computed once per stroke as the brush's first dispatch does
// (findStroke; the layout of FrameConstants::brushState, frame_layout.h): the brush's only
// divisions. r is the radius in samples, clamped to [kBrushMinRadius, kBrushMaxRadius].
struct StrokeSetUp {
  glm::vec3 world{0.0f};     // where it lands, world units (Painter::readStrokeCentre's xyz)
  glm::vec3 centre{0.0f};    // where it lands in sample units: the brush measures from here
  glm::ivec3 nearest{0};     // the sample nearest the centre: the middle of the brush's box
  float radiusSquared = 0;   // r^2
  float rampScale = 0;       // 1 / (4 r)
};
// Where the stroke lands: its origin, or with atRayHit the first half-voxel step along the
// ray whose nearest sample is inside the surface (nullopt: no hit); and its ramp terms.
std::optional<StrokeSetUp> strokeSetUp(const DensityGrid& grid, const Stroke& stroke);
// The stroke's density at sample s: clamp(0.5 + (r^2 - d^2) / (4 r), 0, 1), d in samples
// (shaders/painter/brush.glsl says why a ramp in d^2).
float brushValue(const StrokeSetUp& setUp, const glm::ivec3& s);
// Applies the stroke to the grid; returns the blocks it dirtied (block indices) and counts
// the changed samples into `changed`.
std::set<uint32_t> applyStroke(DensityGrid& grid, const Stroke& stroke, uint32_t* changed = nullptr);

}  // namespace voxen

#include "strict_float.hpp"  // first: the brush must round as brush.glsl does

#include "voxen/painter/cpu_brush.hpp"

#include <algorithm>
#include <cmath>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/painter/work_limits.hpp"

namespace voxen {

using detail::kMaxIterationsPerInvocation;
using gpu::kBlockCells;
using gpu::kIsoLevel;

float brushValue(const DensityGrid& grid, const glm::ivec3& s, const glm::vec3& centre, float radius) {
  const float voxel = grid.voxelSize;
  const float px = grid.origin[0] + float(s.x) * voxel;
  const float py = grid.origin[1] + float(s.y) * voxel;
  const float pz = grid.origin[2] + float(s.z) * voxel;
  const float dx = px - centre.x, dy = py - centre.y, dz = pz - centre.z;
  const float squared = dx * dx + dy * dy + dz * dz;
  const float ramp = 0.5f + (radius - std::sqrt(squared)) / (2.0f * voxel);
  return std::clamp(ramp, 0.0f, 1.0f);
}

glm::ivec3 nearestSample(const DensityGrid& grid, const glm::vec3& p) {
  const float lx = (p.x - grid.origin[0]) / grid.voxelSize + 0.5f;
  const float ly = (p.y - grid.origin[1]) / grid.voxelSize + 0.5f;
  const float lz = (p.z - grid.origin[2]) / grid.voxelSize + 0.5f;
  return {int32_t(std::floor(lx)), int32_t(std::floor(ly)), int32_t(std::floor(lz))};
}

std::optional<glm::vec3> strokeCentre(const DensityGrid& grid, const Stroke& stroke) {
  if (!stroke.atRayHit) return stroke.origin;
  const glm::vec3 dir = glm::length(stroke.direction) > 0.0f ? glm::normalize(stroke.direction) : glm::vec3(0, 0, -1);
  const float step = 0.5f * grid.voxelSize;
  const uint32_t steps = uint32_t(std::min(stroke.searchDistance / step, float(kMaxIterationsPerInvocation)));
  for (uint32_t i = 0; i < steps; ++i) {
    const float t = float(i) * step;
    const glm::vec3 p{stroke.origin.x + dir.x * t, stroke.origin.y + dir.y * t, stroke.origin.z + dir.z * t};
    const glm::ivec3 s = nearestSample(grid, p);
    const bool inside = s.x >= 0 && s.y >= 0 && s.z >= 0 && s.x < int32_t(grid.nx) && s.y < int32_t(grid.ny) &&
                        s.z < int32_t(grid.nz);
    if (inside && grid.at(uint32_t(s.x), uint32_t(s.y), uint32_t(s.z)) >= kIsoLevel) return p;
  }
  return std::nullopt;
}

std::set<uint32_t> applyStroke(DensityGrid& grid, const Stroke& stroke, uint32_t* changed) {
  std::set<uint32_t> dirty;
  uint32_t count = 0;
  const std::optional<glm::vec3> centre = strokeCentre(grid, stroke);
  if (centre && stroke.radius > 0.0f && (stroke.operation == BrushMode::Add || stroke.operation == BrushMode::Erase)) {
    const int32_t side = int32_t(brushBoxSide(stroke.radius, grid.voxelSize, std::max({grid.nx, grid.ny, grid.nz})));
    const glm::ivec3 c = nearestSample(grid, *centre);
    const glm::ivec3 n{int32_t(grid.nx), int32_t(grid.ny), int32_t(grid.nz)};
    const uint32_t blocksX = (grid.nx - 1 + kBlockCells - 1) / kBlockCells, blocksY = (grid.ny - 1 + kBlockCells - 1) / kBlockCells;
    for (int32_t k = 0; k < side * side * side; ++k) {
      const glm::ivec3 s = c - glm::ivec3(side / 2) + glm::ivec3(k % side, (k / side) % side, k / (side * side));
      if (s.x < 1 || s.y < 1 || s.z < 1 || s.x >= n.x - 1 || s.y >= n.y - 1 || s.z >= n.z - 1) continue;
      const float b = brushValue(grid, s, *centre, stroke.radius);
      const size_t i = grid.index(uint32_t(s.x), uint32_t(s.y), uint32_t(s.z));
      const float old = grid.density[i];
      const uint32_t oldColor = grid.color[i];
      float value = old;
      uint32_t color = oldColor;
      if (stroke.operation == BrushMode::Add) {
        value = std::max(old, b);
        if (b > 0.0f) color = stroke.color;
      } else {
        value = std::min(old, 1.0f - b);
      }
      if (value == old && color == oldColor) continue;
      grid.density[i] = value;
      grid.color[i] = color;
      ++count;
      // Cells s - 1 and s have sample s as a corner; the normals of cells s - 2 and s + 1
      // read it through central differences (shaders/painter/brush.glsl, markDirty).
      const glm::ivec3 lo = glm::max(s - 2, glm::ivec3(0)) / int32_t(kBlockCells);
      const glm::ivec3 hi = glm::min(s + 1, n - 2) / int32_t(kBlockCells);
      for (int32_t z = lo.z; z <= hi.z; ++z)
        for (int32_t y = lo.y; y <= hi.y; ++y)
          for (int32_t x = lo.x; x <= hi.x; ++x) dirty.insert(uint32_t(x) + blocksX * (uint32_t(y) + blocksY * uint32_t(z)));
    }
  }
  if (changed) *changed = count;
  return dirty;
}

}  // namespace voxen

#include "strict_float.hpp"  // first: the brush must round as brush.glsl does

#include "voxen/painter/cpu_brush.hpp"

#include <algorithm>
#include <cmath>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/painter/work_limits.hpp"

namespace voxen {

using detail::kMaxIterationsPerInvocation;
using gpu::kBlockCells;
using gpu::kBrushMaxRadius;
using gpu::kBrushMinRadius;
using gpu::kIsoLevel;

namespace {

// A world point in sample units, (p - origin) / voxel.
glm::vec3 sampleUnits(const DensityGrid& grid, const glm::vec3& p) {
  return {(p.x - grid.origin[0]) / grid.voxelSize, (p.y - grid.origin[1]) / grid.voxelSize,
          (p.z - grid.origin[2]) / grid.voxelSize};
}

// The sample nearest a point in sample units.
glm::ivec3 nearestSample(const glm::vec3& local) {
  return {int32_t(std::floor(local.x + 0.5f)), int32_t(std::floor(local.y + 0.5f)), int32_t(std::floor(local.z + 0.5f))};
}

bool insideGrid(const DensityGrid& grid, const glm::ivec3& s) {
  return s.x >= 0 && s.y >= 0 && s.z >= 0 && s.x < int32_t(grid.nx) && s.y < int32_t(grid.ny) && s.z < int32_t(grid.nz);
}

}  // namespace

std::optional<StrokeSetUp> strokeSetUp(const DensityGrid& grid, const Stroke& stroke) {
  StrokeSetUp setUp;
  if (!stroke.atRayHit) {
    setUp.world = stroke.origin;
    setUp.centre = sampleUnits(grid, stroke.origin);
  } else {
    const glm::vec3 dir = glm::length(stroke.direction) > 0.0f ? glm::normalize(stroke.direction) : glm::vec3(0, 0, -1);
    const float step = 0.5f * grid.voxelSize;
    const uint32_t steps = uint32_t(std::min(stroke.searchDistance / step, float(kMaxIterationsPerInvocation)));
    const glm::vec3 start = sampleUnits(grid, stroke.origin);
    bool hit = false;
    for (uint32_t i = 0; i < steps; ++i) {
      const float t = float(i) * 0.5f;  // samples along the ray
      const glm::vec3 p{start.x + dir.x * t, start.y + dir.y * t, start.z + dir.z * t};
      const glm::ivec3 s = nearestSample(p);
      if (insideGrid(grid, s) && grid.at(uint32_t(s.x), uint32_t(s.y), uint32_t(s.z)) >= kIsoLevel) {
        const float w = float(i) * step;  // world units along the ray
        setUp.world = {stroke.origin.x + dir.x * w, stroke.origin.y + dir.y * w, stroke.origin.z + dir.z * w};
        setUp.centre = p;
        hit = true;
        break;
      }
    }
    if (!hit) return std::nullopt;
  }
  setUp.nearest = nearestSample(setUp.centre);
  const float r = std::min(std::max(stroke.radius / grid.voxelSize, kBrushMinRadius), kBrushMaxRadius);
  setUp.radiusSquared = r * r;
  setUp.rampScale = 0.25f / r;
  return setUp;
}

float brushValue(const StrokeSetUp& setUp, const glm::ivec3& s) {
  const float dx = float(s.x) - setUp.centre.x, dy = float(s.y) - setUp.centre.y, dz = float(s.z) - setUp.centre.z;
  const float squared = dx * dx + dy * dy + dz * dz;
  const float ramp = 0.5f + (setUp.radiusSquared - squared) * setUp.rampScale;
  return std::clamp(ramp, 0.0f, 1.0f);
}

std::set<uint32_t> applyStroke(DensityGrid& grid, const Stroke& stroke, uint32_t* changed) {
  std::set<uint32_t> dirty;
  uint32_t count = 0;
  const std::optional<StrokeSetUp> setUp = strokeSetUp(grid, stroke);
  if (setUp && stroke.radius > 0.0f && (stroke.operation == BrushMode::Add || stroke.operation == BrushMode::Erase)) {
    const int32_t side = int32_t(brushBoxSide(stroke.radius, grid.voxelSize, std::max({grid.nx, grid.ny, grid.nz})));
    const glm::ivec3 c = setUp->nearest;
    const glm::ivec3 n{int32_t(grid.nx), int32_t(grid.ny), int32_t(grid.nz)};
    const uint32_t blocksX = (grid.nx - 1 + kBlockCells - 1) / kBlockCells, blocksY = (grid.ny - 1 + kBlockCells - 1) / kBlockCells;
    for (int32_t k = 0; k < side * side * side; ++k) {
      const glm::ivec3 s = c - glm::ivec3(side / 2) + glm::ivec3(k % side, (k / side) % side, k / (side * side));
      if (s.x < 1 || s.y < 1 || s.z < 1 || s.x >= n.x - 1 || s.y >= n.y - 1 || s.z >= n.z - 1) continue;
      const float b = brushValue(*setUp, s);
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

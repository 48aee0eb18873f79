#pragma once
// The CPU reference of the painter's marching cubes (shaders/painter/mesh.glsl): the same
// table, the same float operations in the same order, the same triangle order, so the GPU's
// triangle list equals meshGrid()'s bit for bit. Conventions: shaders/painter/frame_layout.h
// (grid, cells, blocks) and marching_cubes_table.hpp (corners, edges, cases).
//
// A vertex on the edge from sample a (its low corner) to sample b:
//   t = (iso - da) / (db - da),  p = pa + t * (pb - pa),  pa = origin + a * voxel (per axis);
// its normal is the negated density gradient (central differences, indices clamped to the
// grid) interpolated with t and octahedrally encoded (encodeNormal normalises; nothing else
// does). A triangle's colour is that of its cell's densest corner (lowest corner on ties).
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/painter/frame_layout.h"

namespace voxen {

struct DensityGrid {
  uint32_t nx = 0, ny = 0, nz = 0;  // samples
  float origin[3] = {0.0f, 0.0f, 0.0f};
  float voxelSize = 1.0f;
  std::vector<float> density;       // x fastest
  std::vector<uint32_t> color;      // RGBA8

  DensityGrid() = default;
  DensityGrid(uint32_t nx, uint32_t ny, uint32_t nz, float voxelSize = 1.0f);
  size_t index(uint32_t x, uint32_t y, uint32_t z) const { return x + size_t(nx) * (y + size_t(ny) * z); }
  float at(uint32_t x, uint32_t y, uint32_t z) const { return density[index(x, y, z)]; }
  uint32_t blocksX() const { return (nx - 1 + gpu::kBlockCells - 1) / gpu::kBlockCells; }
  uint32_t blocksY() const { return (ny - 1 + gpu::kBlockCells - 1) / gpu::kBlockCells; }
  uint32_t blocksZ() const { return (nz - 1 + gpu::kBlockCells - 1) / gpu::kBlockCells; }
  uint32_t blockCount() const { return blocksX() * blocksY() * blocksZ(); }
};

// Marching cubes case of cell (x, y, z): bit c set when corner c is inside.
uint32_t cellCase(const DensityGrid& grid, uint32_t x, uint32_t y, uint32_t z);

// One block's triangles in canonical order (cells x fastest, then table order).
std::vector<gpu::Triangle> meshBlock(const DensityGrid& grid, uint32_t block);
// Every block's triangles, indexed by block.
std::vector<std::vector<gpu::Triangle>> meshBlocks(const DensityGrid& grid);
// The whole mesh as the GPU lays it out: blocks in index order, concatenated.
std::vector<gpu::Triangle> meshGrid(const DensityGrid& grid);

// Checks for tests. Vertices are welded by exact position; triangles with two welded
// vertices (a vertex exactly on a sample) are degenerate and left out of the edge counts.
struct ClosednessReport {
  size_t triangles = 0;
  size_t degenerate = 0;
  size_t edges = 0;              // undirected, among non-degenerate triangles
  size_t unpairedEdges = 0;      // undirected edges not used by exactly two triangles
  size_t misorientedEdges = 0;   // undirected edges whose two uses do not run in opposite directions
  bool closed() const { return triangles > 0 && unpairedEdges == 0 && misorientedEdges == 0; }
};
ClosednessReport checkClosed(std::span<const gpu::Triangle> triangles);
double surfaceArea(std::span<const gpu::Triangle> triangles);
// Signed volume enclosed by the mesh (divergence theorem): positive when triangles face out.
double enclosedVolume(std::span<const gpu::Triangle> triangles);

}  // namespace voxen

#pragma once
// What the TSDF mesher's parts share (tsdf_mesh.hpp has the model): a block's triangles as
// edges and its vertices as the exact integers, and the weld that turns blocks into a mesh.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen::detail {

// A vertex as integers: its edge, the crossing t (1/65536 voxel from the lower voxel) and
// the interpolated gradient G (tsdf_mesh.hpp). Equal edges always carry equal integers.
struct TsdfMeshVertex {
  TsdfEdge edge;
  uint32_t t = 0;
  bool lowerInside = false;  // the lower voxel is behind the surface (G = 0: the normal is +axis)
  int64_t gradient[3] = {0, 0, 0};
  uint32_t colour = 0;  // red | green << 8 | blue << 16 (gpu::tsdfMeshVertexColour), 0 when the map has no colour
};

// One block's cells: their triangles (edges, table order, cells x fastest) and the vertices
// of those edges (sorted by edge, each once).
struct TsdfBlockMesh {
  std::vector<TsdfMeshVertex> vertices;
  std::vector<std::array<TsdfEdge, 3>> triangles;
  bool empty() const { return triangles.empty() && vertices.empty(); }
};

// TsdfMeshOptions as the cells see them: the weight threshold in weight units, and the box
// as voxel ranges (a corner counts when its voxel lies in [lo, hi] per axis).
struct TsdfMeshLimits {
  uint32_t minWeight = 1;
  bool boxed = false;
  int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
};
TsdfMeshLimits tsdfMeshLimits(const TsdfMeshOptions& options, double resolution);

// Throws Error naming the map's lack of a tsdf layer.
void requireTsdfLayer(const OccupancyMap& map);

// Whether the block's cells can make a triangle: its cells' corner voxels (0 .. 8 per axis)
// hold a counted voxel below 0 and a counted one at or above it. A block that cannot also owns
// no vertex a neighbour's triangle needs (such an edge's two voxels are among its corners).
bool blockMayHoldSurface(const OccupancyMap& map, const TsdfBlock& block, uint32_t minWeight);

// The block's cells (those whose lower voxel lies in the block), read from the map.
TsdfBlockMesh meshTsdfBlockCpu(const OccupancyMap& map, const TsdfBlock& block, const TsdfMeshLimits& limits);

// Every block of the map's regions, sorted.
std::vector<TsdfBlock> tsdfMapBlocks(const OccupancyMap& map);

// meshTsdfBlockCpu over `blocks` on `threads` workers (0: hardware concurrency): results[i]
// is blocks[i]'s.
std::vector<TsdfBlockMesh> meshTsdfBlocksCpu(const OccupancyMap& map, std::span<const TsdfBlock> blocks,
                                             const TsdfMeshLimits& limits, uint32_t threads);

// The mesh of the blocks, given in block order: vertices welded by edge and finished
// (position and normal in double, stored as float; colours when `coloured`), faces as indices.
TsdfMesh weldTsdfMesh(std::span<const TsdfBlockMesh* const> blocks, double resolution, bool coloured);

}  // namespace voxen::detail

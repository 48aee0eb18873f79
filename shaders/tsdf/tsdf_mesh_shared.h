// The TSDF mesher on the GPU (shaders/tsdf/tsdf_mesh.comp, engine/tsdf/src/mesh/gpu_tsdf_mesh.cpp):
// its push constants and the records it appends, one definition for C++ and GLSL. The model
// (cells, crossings, gradients, order) is voxen/tsdf/tsdf_mesh.hpp's; the records carry the
// exact integers, which the host finishes as floats with the CPU reference's code.
#ifndef VOXEN_TSDF_MESH_SHARED_H
#define VOXEN_TSDF_MESH_SHARED_H

#include "../common/shared.h"
#include "../map/tsdf_colour_layer.h"

VOXEN_SHARED_BEGIN

// Per listed block, kTsdfMeshBlockInts ints: the block key x, y, z, its place in the block
// order, then the cache slots of the 3 x 3 x 3 regions around the block's region (x fastest,
// -1: the map has no such region), then padding.
VOXEN_CONST(uint, kTsdfMeshBlockInts, 32u)
// Threads of the workgroup that meshes one block (whole workgroups: one per block).
VOXEN_CONST(uint, kTsdfMeshThreads, 128u)

// A vertex: its edge (lower voxel, axis), packed = axis | lowerInside << 2 | t << 3, the
// interpolated gradient G, the index of its block (the one holding its lower voxel) in the
// caller's list, and its colour (tsdfMeshVertexColour; 0 without a tsdf_colour layer).
struct TsdfMeshVertexRecord {
  int x, y, z;
  uint packed;
  int64_t gradient[3];
  uint owner;
  uint colour;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfMeshVertexRecord) == 48)

// A vertex's colour (voxen/tsdf/tsdf_mesh.hpp): the colours of its edge's voxels a and b
// (packed rgb, tsdf_colour_layer.h) interpolated at the crossing t (1/65536 voxel from a), as
// the gradient is: per channel round((c(a) (65536 - t) + c(b) t) / 65536), halves up. A voxel
// without colour (weight 0) gives way to the other; neither: 0 (black).
VOXEN_FUNCTION uint tsdfMeshVertexColour(uint a, uint wa, uint b, uint wb, uint t) {
  if (wa == 0u && wb == 0u) return 0u;
  if (wb == 0u) return a;
  if (wa == 0u) return b;
  return tsdfColourMean(a, 65536u - t, b, t);
}

// A triangle: its place in the canonical order (its block's index in the caller's list << 12 |
// cell << 3 | triangle in the case) and its three edges as (x, y, z, axis).
struct TsdfMeshTriangleRecord {
  uint64_t order;
  int edges[12];
};
VOXEN_SHARED_ASSERT(sizeof(TsdfMeshTriangleRecord) == 56)

// One workgroup of kTsdfMeshThreads per listed block, each thread a few of its cells: a cell's
// triangles, and the vertices of the three edges whose lower voxel is the cell's lower voxel.
struct TsdfMeshPush {
  VOXEN_ADDRESS blocks;      // int[blockCount * kTsdfMeshBlockInts]
  VOXEN_ADDRESS tsdf;        // the cache's tsdf pool: TsdfVoxel[slot * regionSize^3 + voxel]
  VOXEN_ADDRESS caseTable;   // the painter's marching cubes table (kCaseTableStride uints per case)
  VOXEN_ADDRESS vertices;    // TsdfMeshVertexRecord[vertexCapacity]
  VOXEN_ADDRESS triangles;   // TsdfMeshTriangleRecord[triangleCapacity]
  VOXEN_ADDRESS counters;    // uint[2]: vertices, triangles appended (may pass the capacities)
  VOXEN_ADDRESS colour;      // the cache's tsdf_colour pool (as tsdf), 0: the map has no colour
  uint blockCount;
  int regionSize;
  uint minWeight;            // weight units a corner needs
  uint vertexCapacity;
  uint triangleCapacity;
  int boxLo[3];              // voxels whose centres lie in the box (int limits when none)
  int boxHi[3];
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfMeshPush) == 104)

VOXEN_SHARED_END

#endif

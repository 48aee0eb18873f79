#version 460
// The TSDF mesher: one workgroup per listed block (voxen/tsdf/tsdf_mesh.hpp has the model).
// The workgroup gathers the voxels its cells and their normals read (the block and a border of
// one voxel below, two above: 11^3) into shared memory once, then each thread takes a few
// cells. For a cell it appends the cell's triangles (as edges, with their canonical order), and
// the vertices of the three edges from the cell's lower voxel that are crossed and belong to
// a meshed cell (one of the four cells around the edge), as the exact integers: the crossing
// t and the gradient G, from the same integer steps as the CPU reference
// (engine/tsdf/src/mesh/tsdf_mesh_cpu.cpp), so the host finishes both alike. With a
// tsdf_colour layer (pc.colour), each vertex also carries its edge's voxels' colours
// interpolated at t (tsdfMeshVertexColour), read from the cache per vertex.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "../painter/frame_types.glsl"  // the case table's layout (kCaseTableStride)
#include "tsdf_shared.h"
#include "tsdf_mesh_shared.h"

layout(local_size_x = kTsdfMeshThreads) in;

layout(push_constant) uniform Push { TsdfMeshPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 4) buffer IntArray { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfVoxelArray { TsdfVoxel v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfColourArray { TsdfColourVoxel v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer MeshVertexArray { TsdfMeshVertexRecord v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer MeshTriangleArray { TsdfMeshTriangleRecord v[]; };

int floorDivInt(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

const int kSpan = kTsdfBlock + 3;  // voxels -1 .. kTsdfBlock + 1 of the block, per axis
const uint kSpanVoxels = uint(kSpan * kSpan * kSpan);
shared int sDistance[kSpanVoxels];
shared int sCounts[kSpanVoxels];

uint gBlock;          // this workgroup's block (index into the pass's block list)
ivec3 gLo;            // the block's first voxel
uint gOrder;          // its index in the caller's list (the vertices' owner, the triangles' order)
ivec3 gRegionBase;    // the region below and before the block's region (the 3 x 3 x 3's corner)

// The voxel at global coordinates v, from the region cache: (distance, counts) with counts 1
// when its weight reaches the threshold (0 where the map has no region).
ivec2 fetchVoxel(ivec3 v) {
  int n = pc.regionSize;
  ivec3 r = ivec3(floorDivInt(v.x, n), floorDivInt(v.y, n), floorDivInt(v.z, n));
  ivec3 o = r - gRegionBase;
  int slot = IntArray(pc.blocks).v[gBlock * kTsdfMeshBlockInts + 4u + uint(o.x + 3 * (o.y + 3 * o.z))];
  if (slot < 0) return ivec2(0, 0);
  ivec3 l = v - r * n;
  TsdfVoxelArray voxels = TsdfVoxelArray(pc.tsdf + uint64_t(slot) * uint64_t(n * n * n) * 8ul);
  TsdfVoxel t = voxels.v[uint(l.x + n * (l.y + n * l.z))];
  return ivec2(t.distance, t.weight >= pc.minWeight ? 1 : 0);
}

// The colour of the voxel at global coordinates v (within the block's border), from the
// cache's tsdf_colour pool ({0, 0} where the map has no region).
TsdfColourVoxel fetchColour(ivec3 v) {
  int n = pc.regionSize;
  ivec3 r = ivec3(floorDivInt(v.x, n), floorDivInt(v.y, n), floorDivInt(v.z, n));
  ivec3 o = r - gRegionBase;
  int slot = IntArray(pc.blocks).v[gBlock * kTsdfMeshBlockInts + 4u + uint(o.x + 3 * (o.y + 3 * o.z))];
  TsdfColourVoxel none;
  none.rgb = 0u;
  none.weight = 0u;
  if (slot < 0) return none;
  ivec3 l = v - r * n;
  return TsdfColourArray(pc.colour + uint64_t(slot) * uint64_t(n * n * n) * 8ul).v[uint(l.x + n * (l.y + n * l.z))];
}

// The gathered voxel at global coordinates v (within the block's border).
ivec2 voxelAt(ivec3 v) {
  ivec3 l = v - gLo + ivec3(1);
  int i = l.x + kSpan * (l.y + kSpan * l.z);
  return ivec2(sDistance[i], sCounts[i]);
}

ivec3 axisStep(uint a) { return ivec3(a == 0u ? 1 : 0, a == 1u ? 1 : 0, a == 2u ? 1 : 0); }

// The model's gradient component along axis a at voxel v.
int64_t gradientAt(ivec3 v, uint a) {
  ivec2 c = voxelAt(v), p = voxelAt(v + axisStep(a)), m = voxelAt(v - axisStep(a));
  if (p.y != 0 && m.y != 0) return int64_t(p.x) - int64_t(m.x);
  if (p.y != 0) return 2l * (int64_t(p.x) - int64_t(c.x));
  if (m.y != 0) return 2l * (int64_t(c.x) - int64_t(m.x));
  return 0l;
}

// The marching cubes case of the cell at lower voxel c, or -1 when it is not meshed.
int cellCase(ivec3 c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < pc.boxLo[a] || int64_t(c[a]) + 1l > int64_t(pc.boxHi[a])) return -1;
  int caseIndex = 0;
  for (int k = 0; k < 8; ++k) {
    ivec2 v = voxelAt(c + ivec3(k & 1, (k >> 1) & 1, (k >> 2) & 1));
    if (v.y == 0) return -1;
    if (v.x < 0) caseIndex |= 1 << k;
  }
  return caseIndex;
}

void emitVertex(ivec3 a, uint axis) {
  ivec2 va = voxelAt(a), vb = voxelAt(a + axisStep(axis));
  if (va.y == 0 || vb.y == 0 || (va.x < 0) == (vb.x < 0)) return;
  // Meshed when one of the four cells around the edge is.
  uint u = (axis + 1u) % 3u, w = (axis + 2u) % 3u;
  bool used = false;
  for (int k = 0; k < 4 && !used; ++k) used = cellCase(a - axisStep(u) * (k & 1) - axisStep(w) * (k >> 1)) >= 0;
  if (!used) return;
  int64_t da = int64_t(va.x), db = int64_t(vb.x);
  int64_t num = abs(da) * kTsdfFine, den = abs(da - db);
  int64_t t = (num + den / 2l) / den;
  TsdfMeshVertexRecord r;
  r.x = a.x;
  r.y = a.y;
  r.z = a.z;
  r.packed = axis | (da < 0l ? 4u : 0u) | (uint(t) << 3);
  ivec3 b = a + axisStep(axis);
  for (uint i = 0u; i < 3u; ++i) r.gradient[i] = gradientAt(a, i) * (kTsdfFine - t) + gradientAt(b, i) * t;
  r.owner = gOrder;
  r.colour = 0u;
  if (pc.colour != 0ul) {
    TsdfColourVoxel ca = fetchColour(a), cb = fetchColour(b);
    r.colour = tsdfMeshVertexColour(ca.rgb, ca.weight, cb.rgb, cb.weight, uint(t));
  }
  uint at = atomicAdd(UintArray(pc.counters).v[0], 1u);
  if (at < pc.vertexCapacity) MeshVertexArray(pc.vertices).v[at] = r;
}

void meshCell(uint cell) {
  ivec3 c = gLo + ivec3(int(cell & 7u), int((cell >> 3) & 7u), int(cell >> 6));
  for (uint axis = 0u; axis < 3u; ++axis) emitVertex(c, axis);
  int caseIndex = cellCase(c);
  if (caseIndex < 0) return;
  UintArray table = UintArray(pc.caseTable);
  uint count = table.v[uint(caseIndex) * kCaseTableStride];
  if (count == 0u) return;
  uint first = atomicAdd(UintArray(pc.counters).v[1], count);
  for (uint t = 0u; t < count; ++t) {
    if (first + t >= pc.triangleCapacity) break;
    uint edges = table.v[uint(caseIndex) * kCaseTableStride + 1u + t];
    TsdfMeshTriangleRecord r;
    r.order = (uint64_t(gOrder) << 12) | uint64_t(cell << 3) | uint64_t(t);
    for (uint j = 0u; j < 3u; ++j) {
      uint e = (edges >> (4u * j)) & 15u, a = e / 4u, k = e % 4u;
      ivec3 low = c + axisStep((a + 1u) % 3u) * int(k & 1u) + axisStep((a + 2u) % 3u) * int(k >> 1);
      r.edges[j * 4u] = low.x;
      r.edges[j * 4u + 1u] = low.y;
      r.edges[j * 4u + 2u] = low.z;
      r.edges[j * 4u + 3u] = int(a);
    }
    MeshTriangleArray(pc.triangles).v[first + t] = r;
  }
}

void main() {
  // Whole workgroups per block (dispatchThreads folds whole workgroups into y), so the return
  // below is uniform across a workgroup and the barrier is reached by all or none.
  uint thread = voxenThreadIndex();
  gBlock = thread / kTsdfMeshThreads;
  if (gBlock >= pc.blockCount) return;
  uint lane = thread % kTsdfMeshThreads;
  IntArray blocks = IntArray(pc.blocks);
  uint base = gBlock * kTsdfMeshBlockInts;
  ivec3 block = ivec3(blocks.v[base], blocks.v[base + 1u], blocks.v[base + 2u]);
  gOrder = uint(blocks.v[base + 3u]);
  int n = pc.regionSize;
  gLo = block * kTsdfBlock;
  gRegionBase = ivec3(floorDivInt(gLo.x, n), floorDivInt(gLo.y, n), floorDivInt(gLo.z, n)) - ivec3(1);
  for (uint i = lane; i < kSpanVoxels; i += kTsdfMeshThreads) {
    ivec3 l = ivec3(int(i % uint(kSpan)), int((i / uint(kSpan)) % uint(kSpan)), int(i / uint(kSpan * kSpan)));
    ivec2 v = fetchVoxel(gLo + l - ivec3(1));
    sDistance[i] = v.x;
    sCounts[i] = v.y;
  }
  memoryBarrierShared();
  barrier();
  for (uint cell = lane; cell < kTsdfBlockVoxels; cell += kTsdfMeshThreads) meshCell(cell);
}

// Marching cubes phases of the frame megakernel. The CPU reference is engine/painter/
// cpu_mesher.cpp: every float expression below has a twin there, in the same order, and is
// `precise` here so no compiler fuses or reorders it; the GPU's triangles equal the CPU's bit
// for bit. Table layout and corner/edge conventions: marching_cubes_table.hpp.
//
// Work split: a block is 8 x 8 x 8 cells and a workgroup of 64 invocations; invocation i
// owns the row of 8 cells at block-local (y, z) = (i % 8, i / 8), walked in x. Cell order in
// a block is x fastest, so rows in invocation order are the canonical triangle order.
//
// Phases, each with param 0 (engine/painter/src/painter.cpp dispatches them, in this order):
//   MeshList   one invocation per block: copy offset to previousOffset; append each dirty
//              block to the dirty list (blockLists from the front,
//              counters[kCounterDirtyBlocks] entries).
//   MeshCount  any grid: the workgroups walk the dirty list; each listed block recounts.
//   MeshScan   groups = 1: offsets = exclusive prefix sum of counts; blockTotal.v[0] =
//              triangles in the list, min(total, maxTriangles); the excess is added to
//              counters[kCounterOverflow]. Clean blocks: those that do not fit become dirty;
//              those not already in place (below) go onto the copy list (blockLists from
//              the back, counters[kCounterCopyBlocks] entries).
//   MeshCopy   any grid: the workgroups walk the copy list; each block copies what fits of
//              last frame's triangles.
//   MeshEmit   any grid: the workgroups walk the dirty list; each block emits.
// Lists are in no particular order: a listed block writes only its own places, so the mesh
// is deterministic. Only listed blocks run the marching-cubes or copy code. That matters on
// lavapipe, which runs every branch under lane masks even when no lane takes it: a phase
// with a workgroup per block paid for the whole emission code in every block. A walking
// workgroup takes at most kMeshBlocksPerGroup blocks (frame_kernel.hpp: meshListGroups),
// so a frame that lists every block stays within the iteration budget.
//
// Copies are lavapipe's largest meshing cost (each component of a buffer-address load or
// store is a loop over the lanes), so a clean block whose triangles already lie at its new
// offset in the list this frame writes is not copied. That list is the one of two frames
// ago: BlockInfo::olderOffset says where the block's triangles lie there, complete
// (kNoOffset when the block changed or did not fit since). MeshScan sets it for the next
// frame to previousOffset for a clean block (it fitted last frame, or it would be dirty)
// and to kNoOffset for a dirty one.
//
// Overflow never writes past maxTriangles: a block that does not fit completely keeps (or,
// if clean, gets) its dirty flag, so it is re-meshed (not copied from an incomplete list) in
// the next frame.
//
// Incremental meshing equals a full one only if every block whose cells read a changed
// sample is dirty. Cell c reads its corners c..c+1 and, through the normals' central
// differences, their neighbours c-1..c+2: a changed sample s must dirty the blocks of
// cells s-2..s+1 along each axis (clamped to the grid), not only s-1..s.

// Triangle lists are written as raw Uvec4Array words, so the normal bits travel untouched
// (no float round trip), and copied as Uint64Array words: lavapipe turns every component of
// a buffer-address load or store into a loop over the lanes, so 8 words of 64 bits cost half
// the loops of 4 uvec4 (measured: the copy was most of MeshEmit's time on lavapipe).

shared uint meshRowCounts[64];
shared uvec2 meshBlockState;  // (triangleCount, offset) of the block MeshEmit meshes

struct MeshGrid {
  FloatArray density;
  uint nx, ny, nz;
  vec4 origin;  // w = voxel size
};

MeshGrid meshGrid() {
  FrameConstants f = frameConstants();
  MeshGrid g;
  g.density = f.density;
  g.nx = f.gridX;
  g.ny = f.gridY;
  g.nz = f.gridZ;
  g.origin = f.gridOrigin;
  return g;
}

float meshDensity(MeshGrid g, uvec3 s) { return g.density.v[s.x + g.nx * (s.y + g.ny * s.z)]; }

// The 4 samples of the square at x of a row: corners 0, 2, 4, 6 of the cell starting at x
// (or 1, 3, 5, 7 of the cell before).
vec4 meshSquare(MeshGrid g, uint x, uint y, uint z) {
  uint i = x + g.nx * (y + g.ny * z);
  uint dy = g.nx, dz = g.nx * g.ny;
  return vec4(g.density.v[i], g.density.v[i + dy], g.density.v[i + dz], g.density.v[i + dy + dz]);
}

// Case of a cell from its low square (corners 0, 2, 4, 6) and high square (1, 3, 5, 7).
uint meshCase(vec4 lo, vec4 hi) {
  uvec4 l = uvec4(greaterThanEqual(lo, vec4(kIsoLevel)));
  uvec4 h = uvec4(greaterThanEqual(hi, vec4(kIsoLevel)));
  return l.x | h.x << 1 | l.y << 2 | h.y << 3 | l.z << 4 | h.z << 5 | l.w << 6 | h.w << 7;
}

uint meshCaseTriangles(UintArray table, uint c) { return table.v[c * kCaseTableStride]; }

// The cells of the block's row owned by this invocation: first cell and how many exist.
struct MeshRow {
  uvec3 cell;
  uint cells;
};

MeshRow meshRow(MeshGrid g, uint block, uint invocation) {
  FrameConstants f = frameConstants();
  uvec3 b = uvec3(block % f.blocksX, (block / f.blocksX) % f.blocksY, block / (f.blocksX * f.blocksY));
  MeshRow r;
  r.cell = b * kBlockCells + uvec3(0u, invocation % kBlockCells, invocation / kBlockCells);
  bool exists = r.cell.y < g.ny - 1u && r.cell.z < g.nz - 1u && r.cell.x < g.nx - 1u;
  r.cells = exists ? min(kBlockCells, g.nx - 1u - r.cell.x) : 0u;
  return r;
}

uint meshRowTriangles(MeshGrid g, UintArray table, MeshRow r) {
  uint count = 0u;
  if (r.cells == 0u) return 0u;
  vec4 lo = meshSquare(g, r.cell.x, r.cell.y, r.cell.z);
  for (uint k = 0u; k < r.cells; ++k) {
    vec4 hi = meshSquare(g, r.cell.x + k + 1u, r.cell.y, r.cell.z);
    count += meshCaseTriangles(table, meshCase(lo, hi));
    lo = hi;
  }
  return count;
}

// Central differences with indices clamped to the grid (cpu_mesher.cpp: gradient).
vec3 meshGradient(MeshGrid g, uvec3 s) {
  uvec3 lo = uvec3(max(ivec3(s) - 1, ivec3(0)));
  uvec3 hi = min(s + 1u, uvec3(g.nx, g.ny, g.nz) - 1u);
  precise float gx = meshDensity(g, uvec3(hi.x, s.y, s.z)) - meshDensity(g, uvec3(lo.x, s.y, s.z));
  precise float gy = meshDensity(g, uvec3(s.x, hi.y, s.z)) - meshDensity(g, uvec3(s.x, lo.y, s.z));
  precise float gz = meshDensity(g, uvec3(s.x, s.y, hi.z)) - meshDensity(g, uvec3(s.x, s.y, lo.z));
  return vec3(gx, gy, gz);
}

uvec3 meshCorner(uint c) { return uvec3(c & 1u, (c >> 1) & 1u, c >> 2); }

// The vertex on edge e of a cell as (position bits, encoded normal) (cpu_mesher.cpp: edgeVertex).
uvec4 meshEdgeVertex(MeshGrid g, uvec3 cell, uint e) {
  uint axis = e >> 2, j = e & 3u;
  uint lowCorner = ((j & 1u) << ((axis + 1u) % 3u)) | ((j >> 1) << ((axis + 2u) % 3u));
  uvec3 a = cell + meshCorner(lowCorner);
  uvec3 b = cell + meshCorner(lowCorner | (1u << axis));
  float da = meshDensity(g, a), db = meshDensity(g, b);
  precise float t = exactDiv(kIsoLevel - da, db - da);
  float voxel = g.origin.w;
  precise vec3 pa = g.origin.xyz + vec3(a) * voxel;
  precise vec3 pb = g.origin.xyz + vec3(b) * voxel;
  precise vec3 p = pa + t * (pb - pa);
  precise vec3 ga = meshGradient(g, a);
  precise vec3 gb = meshGradient(g, b);
  precise vec3 n = -(ga + t * (gb - ga));
  return uvec4(floatBitsToUint(p), encodeNormal(n));
}

// Emits the row's triangles from index `first` of the frame's list; those at or past
// maxTriangles are skipped.
void meshEmitRow(MeshGrid g, UintArray table, MeshRow r, uint first) {
  FrameConstants f = frameConstants();
  Uvec4Array dst = Uvec4Array(uint64_t(f.triangles));
  UintArray colors = f.color;
  uint maxTriangles = f.maxTriangles;
  uint next = first;
  if (r.cells == 0u) return;
  vec4 lo = meshSquare(g, r.cell.x, r.cell.y, r.cell.z);
  for (uint k = 0u; k < r.cells; ++k) {
    vec4 hi = meshSquare(g, r.cell.x + k + 1u, r.cell.y, r.cell.z);
    uint c = meshCase(lo, hi);
    uint count = meshCaseTriangles(table, c);
    if (count > 0u) {
      uvec3 cell = r.cell + uvec3(k, 0u, 0u);
      // Densest corner, lowest corner index on ties (corner order 0..7).
      float d[8] = float[8](lo.x, hi.x, lo.y, hi.y, lo.z, hi.z, lo.w, hi.w);
      uint densest = 0u;
      for (uint q = 1u; q < 8u; ++q)
        if (d[q] > d[densest]) densest = q;
      uvec3 s = cell + meshCorner(densest);
      uint color = colors.v[s.x + g.nx * (s.y + g.ny * s.z)];
      uint cellIndex = cell.x + (g.nx - 1u) * (cell.y + (g.ny - 1u) * cell.z);
      for (uint t = 0u; t < count; ++t, ++next) {
        if (next >= maxTriangles) continue;
        uint edges = table.v[c * kCaseTableStride + 1u + t];
        dst.v[next * 4u + 0u] = meshEdgeVertex(g, cell, edges & 15u);
        dst.v[next * 4u + 1u] = meshEdgeVertex(g, cell, (edges >> 4) & 15u);
        dst.v[next * 4u + 2u] = meshEdgeVertex(g, cell, (edges >> 8) & 15u);
        dst.v[next * 4u + 3u] = uvec4(color, cellIndex, 0u, 0u);
      }
    }
    lo = hi;
  }
}

uint meshBlockCount() {
  FrameConstants f = frameConstants();
  return f.blocksX * f.blocksY * f.blocksZ;
}

// Sum of meshRowCounts[0 .. n) (after a barrier).
uint meshRowPrefix(uint n) {
  uint sum = 0u;
  for (uint k = 0u; k < n; ++k) sum += meshRowCounts[k];
  return sum;
}

// The workgroups of a list-walking phase: all that were launched (a folded launch's extra
// ones too), so any grid covers the list.
uint meshListStride() { return gl_NumWorkGroups.x * gl_NumWorkGroups.y; }

// Triangles of a block at `offset` that fit the list.
uint meshFits(uint offset, uint count, uint maxTriangles) {
  return offset >= maxTriangles ? 0u : min(count, maxTriangles - offset);
}

void phaseMeshList() {
  uint block = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  if (block >= meshBlockCount()) return;
  FrameConstants f = frameConstants();
  BlockArray blocks = f.blocks;
  blocks.v[block].previousOffset = blocks.v[block].offset;
  if (blocks.v[block].dirty != 0u) f.blockLists.v[atomicAdd(f.counters.v[kCounterDirtyBlocks], 1u)] = block;
}

void phaseMeshCount() {
  FrameConstants f = frameConstants();
  BlockArray blocks = f.blocks;
  UintArray list = f.blockLists;
  uint i = gl_LocalInvocationIndex;
  uint listed = f.counters.v[kCounterDirtyBlocks];  // the same for the whole workgroup: the loop is uniform
  MeshGrid g = meshGrid();
  for (uint k = painterGroupIndex(); k < listed; k += meshListStride()) {
    uint block = list.v[k];
    meshRowCounts[i] = meshRowTriangles(g, f.caseTable, meshRow(g, block, i));
    barrier();
    if (i == 0u) blocks.v[block].triangleCount = meshRowPrefix(64u);
    barrier();  // meshRowCounts is rewritten for the next block
  }
}

void phaseMeshScan() {
  if (painterGroupIndex() != 0u) return;
  FrameConstants f = frameConstants();
  BlockArray blocks = f.blocks;
  uint i = gl_LocalInvocationIndex;
  uint n = meshBlockCount();
  uint maxTriangles = f.maxTriangles;
  // Each invocation scans a contiguous slice: at most 2 * ceil(n / 64) + 64 loop steps, so
  // 65,536 blocks take about 2,100 (lavapipe's cap is 65,535).
  WorkRange range = workRange(i, (n + 63u) / 64u, n);
  uint sum = 0u;
  for (uint b = range.begin; b < range.end; ++b) sum += blocks.v[b].triangleCount;
  meshRowCounts[i] = sum;
  barrier();
  uint offset = meshRowPrefix(i);
  for (uint b = range.begin; b < range.end; ++b) {
    BlockInfo info = blocks.v[b];
    blocks.v[b].offset = offset;
    uint older = kNoOffset;
    if (info.dirty == 0u) {
      uint fits = meshFits(offset, info.triangleCount, maxTriangles);
      if (fits != info.triangleCount) blocks.v[b].dirty = 1u;
      if (fits > 0u && info.olderOffset != offset)
        f.blockLists.v[n - 1u - atomicAdd(f.counters.v[kCounterCopyBlocks], 1u)] = b;
      older = info.previousOffset;
    }
    blocks.v[b].olderOffset = older;
    offset += info.triangleCount;
  }
  if (i == 63u) {
    uint total = offset;
    f.blockTotal.v[0] = min(total, maxTriangles);
    if (total > maxTriangles) atomicAdd(f.counters.v[kCounterOverflow], total - maxTriangles);
  }
}

void phaseMeshCopy() {
  FrameConstants f = frameConstants();
  BlockArray blocks = f.blocks;
  UintArray list = f.blockLists;
  uint i = gl_LocalInvocationIndex;
  uint n = meshBlockCount();
  uint listed = f.counters.v[kCounterCopyBlocks];
  uint maxTriangles = f.maxTriangles;
  // Last frame's triangles of the block, as words. A clean block fitted completely last
  // frame (one that did not would still be dirty), so the source range is whole.
  Uint64Array src = Uint64Array(uint64_t(f.previousTriangles));
  Uint64Array dst = Uint64Array(uint64_t(f.triangles));
  for (uint k = painterGroupIndex(); k < listed; k += meshListStride()) {
    uint block = list.v[n - 1u - k];
    uint count = blocks.v[block].triangleCount, offset = blocks.v[block].offset;
    uint previousOffset = blocks.v[block].previousOffset;
    uint words = meshFits(offset, count, maxTriangles) * 8u;
    for (uint w = i; w < words; w += 64u) dst.v[offset * 8u + w] = src.v[previousOffset * 8u + w];
  }
}

void phaseMeshEmit() {
  FrameConstants f = frameConstants();
  UintArray list = f.blockLists;
  uint i = gl_LocalInvocationIndex;
  uint listed = f.counters.v[kCounterDirtyBlocks];  // the same for the whole workgroup: the loop is uniform
  uint maxTriangles = f.maxTriangles;
  MeshGrid g = meshGrid();
  for (uint k = painterGroupIndex(); k < listed; k += meshListStride()) {
    uint block = list.v[k];
    if (i == 0u) {
      BlockInfo info = f.blocks.v[block];
      meshBlockState = uvec2(info.triangleCount, info.offset);
    }
    MeshRow row = meshRow(g, block, i);
    meshRowCounts[i] = meshRowTriangles(g, f.caseTable, row);
    barrier();
    uint count = meshBlockState.x, offset = meshBlockState.y;
    meshEmitRow(g, f.caseTable, row, offset + meshRowPrefix(i));
    if (i == 0u) f.blocks.v[block].dirty = meshFits(offset, count, maxTriangles) == count ? 0u : 1u;
    barrier();  // meshRowCounts and meshBlockState are rewritten for the next block
  }
}

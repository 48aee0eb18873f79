#pragma once
// The painter's GPU data layout, shared by the host, the CPU references and the shaders:
// shaders/painter/painter_common.glsl mirrors every struct here (std430). Change both.
//
// Grid. Density samples on an nx x ny x nz lattice (each a multiple of kBlockCells),
// sample (x, y, z) at world position origin + (x, y, z) * voxelSize, stored x fastest:
// index = x + nx * (y + ny * z). A sample holds a float density in [0, 1] and an RGBA8
// colour (red in the lowest byte). The surface is density == kIsoLevel. The outermost layer
// of samples is kept at 0 (the brush never writes it), so every mesh is closed.
//
// Cells. Cell (x, y, z), 0 <= x < nx - 1 (same for y, z), spans samples x..x+1 etc. Cells
// are meshed in blocks of kBlockCells^3: block (bx, by, bz) holds cells bx*8 .. bx*8+7 that
// exist. Blocks are indexed bx + blocksX * (by + blocksY * bz), blocksX = (nx - 1 + 7) / 8.
// A block's triangles are its cells' triangles in cell order (x fastest inside the block),
// each cell's in the order of the case table: meshing is deterministic, so the GPU's mesh
// equals the CPU reference's bit for bit and an incremental re-mesh equals a full one.
//
// Triangles. World-space positions with per-vertex normals (octahedral, packSnorm2x16).
#include <cstddef>
#include <cstdint>

namespace voxen::painter {

constexpr uint32_t kBlockCells = 8;
constexpr float kIsoLevel = 0.5f;

// Phases of the frame megakernel (shaders/painter/frame.comp, spec constant 0). Meshing
// (shaders/painter/mesh.glsl) runs per-block code only where it is short: the marching-cubes
// code runs for the blocks on the frame's dirty list, the copy for those on its copy list.
enum class Phase : uint32_t {
  Brush = 0,         // apply this frame's brush stroke to the grid, mark dirty blocks
  MeshList = 1,      // per block: offset -> previousOffset; dirty blocks onto the dirty list
  MeshCount = 2,     // per dirty-listed block: count triangles; clean blocks keep last frame's count
  MeshScan = 3,      // block offsets (exclusive prefix sum); clean blocks to move onto the copy list
  MeshCopy = 4,      // per copy-listed block: copy last frame's triangles
  MeshEmit = 5,      // per dirty-listed block: emit triangles
  RasterClear = 6,   // framebuffer to "empty"
  RasterSmall = 7,   // one invocation per triangle: small ones drawn, large ones queued
  RasterLarge = 8,   // queued large triangles, one workgroup per (triangle, tile of pixels)
  Resolve = 9,       // framebuffer to an RGBA8 image
  Count = 10
};

// MeshCount, MeshCopy and MeshEmit spread their list over the workgroups the host launched.
// One listed block costs each invocation of a workgroup at most about 200 loop iterations to
// mesh and 320 to copy (2,560 triangles), so a workgroup may take kMeshBlocksPerGroup of them
// within the iteration budget (shaders/common/work_range.glsl) when every block is listed
// (the first frame); beyond that a launch of kMeshGroups suits a GPU (on lavapipe every
// launched workgroup pays one pass of the loop body even when the list has nothing for it).
constexpr uint32_t kMeshBlocksPerGroup = 64;
constexpr uint32_t kMeshGroups = 256;
constexpr uint64_t meshListGroups(uint64_t blocks) {
  const uint64_t budget = (blocks + kMeshBlocksPerGroup - 1) / kMeshBlocksPerGroup;
  const uint64_t wanted = blocks < kMeshGroups ? blocks : kMeshGroups;
  return budget > wanted ? budget : wanted;
}

struct Triangle {     // 64 bytes
  float p0[3];
  uint32_t n0;        // octahedral normal, packSnorm2x16
  float p1[3];
  uint32_t n1;
  float p2[3];
  uint32_t n2;
  uint32_t color;     // RGBA8 (red in the low byte)
  uint32_t cell;      // linear index of the cell that emitted it (debugging, tests)
  uint32_t unused[2];
};
static_assert(sizeof(Triangle) == 64);

// BlockInfo::olderOffset when the block's triangles are not in the list of two frames ago.
constexpr uint32_t kNoOffset = 0xFFFFFFFFu;

struct BlockInfo {    // 32 bytes, persistent across frames
  uint32_t triangleCount;  // this frame's (after MeshCount)
  uint32_t offset;         // this frame's first triangle (after MeshScan)
  uint32_t previousOffset; // last frame's first triangle (copied from offset by MeshList)
  uint32_t dirty;          // non-zero: re-mesh this frame (set by the brush, cleared by MeshEmit;
                           // MeshScan and MeshEmit set it for a block that did not fit)
  uint32_t olderOffset;    // where the block's current triangles lie, complete, in the list of
                           // two frames ago (the one this frame writes), or kNoOffset (MeshScan)
  uint32_t unused[3];
};
static_assert(sizeof(BlockInfo) == 32);

// Frame counters (one uint32 each), cleared at the start of every frame.
enum Counter : uint32_t {
  kCounterLargeTriangles = 0,  // entries in the large-triangle queue
  kCounterLargeTiles = 1,      // (triangle, tile) work items of the queue
  kCounterDrawnTriangles = 2,  // triangles that passed culling
  kCounterOverflow = 3,        // triangles that did not fit the triangle list (never silent)
  kCounterBrushVoxels = 4,     // samples the brush changed
  kCounterDirtyBlocks = 5,     // entries of the dirty list (MeshList), at the front of blockLists
  kCounterCopyBlocks = 6,      // entries of the copy list (MeshScan), at the back of blockLists
  kCounterCount = 8
};

// Raster modes (FrameConstants::rasterMode).
enum RasterMode : uint32_t {
  kRasterShaded = 0,      // low 32 bits: the shaded RGBA8 colour
  kRasterTriangleId = 1,  // low 32 bits: the triangle's index in the list (tests, picking)
};

// Everything a phase needs, in one buffer whose address is the only push constant. 16-byte
// aligned members first; no 3-component vectors, whose std430 alignment is 16 bytes (the
// GLSL mirror in painter_common.glsl spells them as scalars).
// Brush modes (FrameConstants::brushMode): an operation, and where it applies.
enum BrushMode : uint32_t {
  kBrushNone = 0,
  kBrushAdd = 1,
  kBrushErase = 2,
  kBrushOperationMask = 3,
  kBrushAtRayHit = 4,  // centre: where the ray (brushRayOrigin, brushRayDir) first meets the surface
                       // (no hit: no stroke); without it the centre is brushRayOrigin itself
};

// Everything a phase needs, in one buffer whose address is the only push constant. No
// 3-component vectors, whose std430 alignment is 16 bytes (the GLSL mirror in
// painter_common.glsl spells them as scalars).
struct FrameConstants {
  float viewProj[16];      // column-major (GLM), world -> clip, Vulkan clip space (y down, z in [0,1])
  float cameraPos[4];      // world, w unused
  float lightDir[4];       // world, towards the light, normalised
  float gridOrigin[4];     // world position of sample (0,0,0); w = voxelSize
  float brushRayOrigin[4]; // world; w = brush radius in world units
  float brushRayDir[4];    // world, normalised; w = how far the hit search looks
  uint32_t brushColor;     // RGBA8
  uint32_t brushMode;      // BrushMode bits
  uint32_t brushBoxSide;   // samples per side of the cube the brush phase covers (host: painter.hpp's brushBoxSide)
  uint32_t gridSize[3];    // nx, ny, nz
  uint32_t blockCount[3];  // blocksX, blocksY, blocksZ
  uint32_t width, height;  // framebuffer pixels
  uint32_t tilesX, tilesY; // 8 x 8 pixel tiles
  uint32_t rasterMode;     // RasterMode
  uint32_t maxTriangles;   // capacity of the triangle list
  uint32_t backgroundColor;// RGBA8
  uint32_t cullBackFaces;  // non-zero: drop triangles facing away from the camera
  uint32_t largeTriangleArea; // bounding-box pixels above which a triangle goes to the large queue
  uint32_t maxLargeTiles;  // large-triangle tiles per frame (and entries of the large queue)
  uint32_t unusedU32[3];
  // Addresses (buffer device addresses; 0 where unused).
  uint64_t density;        // float per sample
  uint64_t color;          // uint per sample
  uint64_t blocks;         // BlockInfo per block
  uint64_t triangles;      // this frame's Triangle list: the one written two frames ago and untouched
                           // since (or any, after every block was marked dirty): MeshCopy skips the
                           // blocks whose triangles are still in place there (BlockInfo::olderOffset)
  uint64_t previousTriangles; // last frame's list (MeshCopy copies clean blocks from it)
  uint64_t counters;       // uint32 per Counter
  uint64_t framebuffer;    // uint64 per pixel, tiled 8 x 8: ((ty * tilesX + tx) * 64 + py * 8 + px)
  uint64_t largeQueue;     // uvec2 per large triangle: (triangle, its first tile); tiles are 32x32-pixel chunks
  uint64_t image;          // RGBA8 per pixel, row-major, top row first
  uint64_t fragmentCounts; // uint per pixel (tiled like the framebuffer) or 0: counts writes (tests)
  uint64_t blockTotal;     // uint: total triangles after MeshScan
  uint64_t brushState;     // vec4: the stroke's centre (world), w = 1 when there is a stroke
  uint64_t caseTable;      // the marching-cubes case table (marching_cubes_table.hpp)
  uint64_t blockLists;     // uint per block: the frame's dirty list from the front, its copy list from the back
};
static_assert(sizeof(FrameConstants) == 344 && offsetof(FrameConstants, density) == 232);

}  // namespace voxen::painter

// The painter's GPU data layout, one definition for the shaders (GLSL, std430) and the
// engine, its CPU references and tests (C++, namespace voxen::gpu): common/shared.h.
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
//
// GLSL includers declare the buffer-reference types the addresses below name before
// including this file (frame_types.glsl): FloatArray, UintArray, Uint64Array, Uvec2Array,
// Vec4Array (common/buffers.glsl) and, forward, BlockArray, TriangleArray, FrameConstantsRef.
#ifndef VOXEN_PAINTER_FRAME_LAYOUT_H
#define VOXEN_PAINTER_FRAME_LAYOUT_H

#include "../common/shared.h"

// A buffer address that the shaders use as a typed buffer reference (f.density.v[i]) and C++
// as a device address (VOXEN_ADDRESS): both are 8 bytes with 8-byte alignment in std430, so
// the frame's dozen addresses need no casts in the shaders. (A local helper: shared.h has
// only the untyped VOXEN_ADDRESS.)
#ifdef __cplusplus
#define VOXEN_PAINTER_REF(glslType) VOXEN_ADDRESS
#else
#define VOXEN_PAINTER_REF(glslType) glslType
#endif

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kBlockCells, 8u)
// Invocations per workgroup of the frame megakernel (its local_size_x): the host sizes every
// phase's launch in such groups.
VOXEN_CONST(uint, kFrameGroupSize, 64u)
VOXEN_CONST(float, kIsoLevel, 0.5f)

// Phases of the frame megakernel (shaders/painter/frame.comp, spec constant 0). Meshing
// (shaders/painter/mesh.glsl) runs per-block code only where it is short: the marching-cubes
// code runs for the blocks on the frame's dirty list, the copy for those on its copy list.
VOXEN_CONST(uint, kPhaseBrush, 0u)        // apply this frame's brush stroke to the grid, mark dirty blocks
VOXEN_CONST(uint, kPhaseMeshList, 1u)     // per block: offset -> previousOffset; dirty blocks onto the dirty list
VOXEN_CONST(uint, kPhaseMeshCount, 2u)    // per dirty-listed block: count triangles; clean blocks keep last frame's count
VOXEN_CONST(uint, kPhaseMeshScan, 3u)     // block offsets (exclusive prefix sum); clean blocks to move onto the copy list
VOXEN_CONST(uint, kPhaseMeshCopy, 4u)     // per copy-listed block: copy last frame's triangles
VOXEN_CONST(uint, kPhaseMeshEmit, 5u)     // per dirty-listed block: emit triangles
VOXEN_CONST(uint, kPhaseRasterClear, 6u)  // framebuffer to "empty"
VOXEN_CONST(uint, kPhaseRasterSmall, 7u)  // one invocation per triangle: small ones drawn, large ones queued
VOXEN_CONST(uint, kPhaseRasterLarge, 8u)  // queued large triangles, one workgroup per (triangle, tile of pixels)
VOXEN_CONST(uint, kPhaseResolve, 9u)      // framebuffer to an RGBA8 image
VOXEN_CONST(uint, kPhaseCount, 10u)

// The marching cubes case table as the GPU reads it (marching_cubes_table.hpp):
// kCaseTableStride uints per case, word 0 the triangle count, word 1 + k triangle k as
// edge0 | edge1 << 4 | edge2 << 8.
VOXEN_CONST(uint, kMaxCaseTriangles, 7u)  // the generated table needs 5
VOXEN_CONST(uint, kCaseTableStride, 1u + kMaxCaseTriangles)

struct Triangle {     // 64 bytes
  float p0[3];
  uint n0;            // octahedral normal, packSnorm2x16
  float p1[3];
  uint n1;
  float p2[3];
  uint n2;
  uint color;         // RGBA8 (red in the low byte)
  uint cell;          // linear index of the cell that emitted it (debugging, tests)
  uint unused[2];
};
VOXEN_SHARED_ASSERT(sizeof(Triangle) == 64 && offsetof(Triangle, n0) == 12 && offsetof(Triangle, p1) == 16)
VOXEN_SHARED_ASSERT(offsetof(Triangle, color) == 48 && offsetof(Triangle, cell) == 52)

// BlockInfo::olderOffset when the block's triangles are not in the list of two frames ago.
VOXEN_CONST(uint, kNoOffset, 0xFFFFFFFFu)

struct BlockInfo {    // 32 bytes, persistent across frames
  uint triangleCount;  // this frame's (after MeshCount)
  uint offset;         // this frame's first triangle (after MeshScan)
  uint previousOffset; // last frame's first triangle (copied from offset by MeshList)
  uint dirty;          // non-zero: re-mesh this frame (set by the brush, cleared by MeshEmit;
                       // MeshScan and MeshEmit set it for a block that did not fit)
  uint olderOffset;    // where the block's current triangles lie, complete, in the list of
                       // two frames ago (the one this frame writes), or kNoOffset (MeshScan)
  uint unused[3];
};
VOXEN_SHARED_ASSERT(sizeof(BlockInfo) == 32 && offsetof(BlockInfo, olderOffset) == 16)

// Frame counters (one uint32 each), cleared at the start of every frame.
VOXEN_CONST(uint, kCounterLargeTriangles, 0u)  // entries in the large-triangle queue
VOXEN_CONST(uint, kCounterLargeTiles, 1u)      // (triangle, tile) work items of the queue
VOXEN_CONST(uint, kCounterDrawnTriangles, 2u)  // triangles that passed culling
VOXEN_CONST(uint, kCounterOverflow, 3u)        // triangles that did not fit the triangle list (never silent)
VOXEN_CONST(uint, kCounterBrushVoxels, 4u)     // samples the brush changed
VOXEN_CONST(uint, kCounterDirtyBlocks, 5u)     // entries of the dirty list (MeshList), at the front of blockLists
VOXEN_CONST(uint, kCounterCopyBlocks, 6u)      // entries of the copy list (MeshScan), at the back of blockLists
VOXEN_CONST(uint, kCounterCount, 8u)

// Raster modes (FrameConstants::rasterMode).
VOXEN_CONST(uint, kRasterShaded, 0u)      // low 32 bits: the shaded RGBA8 colour
VOXEN_CONST(uint, kRasterTriangleId, 1u)  // low 32 bits: the triangle's index in the list (tests, picking)

// Brush modes (FrameConstants::brushMode): an operation, and where it applies.
VOXEN_CONST(uint, kBrushNone, 0u)
VOXEN_CONST(uint, kBrushAdd, 1u)
VOXEN_CONST(uint, kBrushErase, 2u)
VOXEN_CONST(uint, kBrushOperationMask, 3u)
VOXEN_CONST(uint, kBrushAtRayHit, 4u)  // centre: where the ray (brushRayOrigin, brushRayDir) first meets the
                                       // surface (no hit: no stroke); without it the centre is brushRayOrigin itself

// The stroke's set-up (FrameConstants::brushState), written once per stroke by the brush's
// first dispatch so that the per-sample dispatch divides and takes no roots:
// [0] the centre in world units, w = 1 when there is a stroke (Painter::readStrokeCentre);
// [1] the centre in sample units, (world - gridOrigin) / voxelSize, w = r^2;
// [2] the sample nearest the centre (exact integers in floats), w = 1 / (4 r);
// r is the radius in sample units, clamped to [kBrushMinRadius, kBrushMaxRadius].
VOXEN_CONST(uint, kBrushStateVec4s, 3u)
VOXEN_CONST(float, kBrushMinRadius, 5.9604644775390625e-8f)  // 2^-24 samples: keeps 1 / (4 r) finite
VOXEN_CONST(float, kBrushMaxRadius, 16777216.0f)              // 2^24 samples: keeps r^2 finite, 1 / (4 r) normal

// Everything a phase needs, in one buffer whose address is the only push constant. The
// 16-byte aligned members come first; std430 rounds the struct's size up to 16 bytes.
struct FrameConstants {
  vec4 viewProj[4];        // columns (GLM), world -> clip, Vulkan clip space (y down, z in [0,1])
  vec4 cameraPos;          // world, w unused
  vec4 lightDir;           // world, towards the light, normalised
  vec4 gridOrigin;         // world position of sample (0,0,0); w = voxelSize
  vec4 brushRayOrigin;     // world; w = brush radius in world units
  vec4 brushRayDir;        // world, normalised; w = how far the hit search looks
  uint brushColor;         // RGBA8
  uint brushMode;          // kBrush* bits
  uint brushBoxSide;       // samples per side of the cube the brush phase covers (host: painter.hpp's brushBoxSide)
  uint gridX, gridY, gridZ;        // nx, ny, nz
  uint blocksX, blocksY, blocksZ;
  uint width, height;      // framebuffer pixels
  uint tilesX, tilesY;     // 8 x 8 pixel tiles
  uint rasterMode;         // kRaster*
  uint maxTriangles;       // capacity of the triangle list
  uint backgroundColor;    // RGBA8
  uint cullBackFaces;      // non-zero: drop triangles facing away from the camera
  uint largeTriangleArea;  // bounding-box pixels above which a triangle goes to the large queue
  uint maxLargeTiles;      // large-triangle tiles per frame (and entries of the large queue)
  uint unusedU32[3];
  // Addresses (buffer device addresses; 0 where unused).
  VOXEN_PAINTER_REF(FloatArray) density;   // float per sample
  VOXEN_PAINTER_REF(UintArray) color;      // uint per sample
  VOXEN_PAINTER_REF(BlockArray) blocks;    // BlockInfo per block
  // This frame's Triangle list: the one written two frames ago and untouched since (or any,
  // after every block was marked dirty): MeshCopy skips the blocks whose triangles are still
  // in place there (BlockInfo::olderOffset).
  VOXEN_PAINTER_REF(TriangleArray) triangles;
  VOXEN_PAINTER_REF(TriangleArray) previousTriangles;  // last frame's list (MeshCopy copies clean blocks from it)
  VOXEN_PAINTER_REF(UintArray) counters;       // uint32 per kCounter*
  VOXEN_PAINTER_REF(Uint64Array) framebuffer;  // uint64 per pixel, tiled 8 x 8: ((ty * tilesX + tx) * 64 + py * 8 + px)
  VOXEN_PAINTER_REF(Uvec2Array) largeQueue;    // uvec2 per large triangle: (triangle, its first tile); tiles are 32x32-pixel chunks
  VOXEN_PAINTER_REF(UintArray) image;          // RGBA8 per pixel, row-major, top row first
  VOXEN_PAINTER_REF(UintArray) fragmentCounts; // uint per pixel (tiled like the framebuffer) or 0: counts writes (tests)
  VOXEN_PAINTER_REF(UintArray) blockTotal;     // uint: total triangles after MeshScan
  VOXEN_PAINTER_REF(Vec4Array) brushState;     // kBrushStateVec4s vec4s, the stroke's set-up (brush.glsl, findStroke)
  VOXEN_PAINTER_REF(UintArray) caseTable;      // the marching-cubes case table (kCaseTableStride)
  VOXEN_PAINTER_REF(UintArray) blockLists;     // uint per block: the frame's dirty list from the front, its copy list from the back
};
VOXEN_SHARED_ASSERT(offsetof(FrameConstants, cameraPos) == 64 && offsetof(FrameConstants, brushColor) == 144)
VOXEN_SHARED_ASSERT(offsetof(FrameConstants, density) == 232 && offsetof(FrameConstants, blockLists) == 336)
VOXEN_SHARED_ASSERT(sizeof(FrameConstants) == 352)

// The frame's one push constant: where its constants are. `param` is a per-dispatch value
// some phases use (documented at each phase).
struct PainterPush {
  VOXEN_PAINTER_REF(FrameConstantsRef) frame;
  uint param;
  uint unused;
};
VOXEN_SHARED_ASSERT(sizeof(PainterPush) == 16)

VOXEN_SHARED_END

#endif

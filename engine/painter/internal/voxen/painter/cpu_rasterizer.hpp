#pragma once
// The painter's software rasterizer on the CPU: the reference the GPU phases
// (shaders/painter/raster.glsl, whose header comment states the arithmetic) are tested
// against. Same float operations in the same order, same exact integer edge functions, so
// the framebuffers agree bit for bit. Also the launch sizes the frame must respect.
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/gpu/painter/raster_constants.h"  // the constants both sides share (gpu::kRaster*)

namespace voxen {

// Framebuffer entry of pixel (x, y): 8 x 8 tiles, row-major tiles, row-major inside.
inline uint32_t rasterTiledIndex(uint32_t tilesX, uint32_t x, uint32_t y) {
  return ((y >> 3) * tilesX + (x >> 3)) * 64u + (y & 7u) * 8u + (x & 7u);
}

struct RasterResult {
  std::vector<uint64_t> framebuffer;     // tiled: tilesX * tilesY * 64 entries
  std::vector<uint32_t> fragmentCounts;  // tiled like the framebuffer
  std::vector<uint32_t> image;           // row-major, top row first (what Resolve writes)
  uint32_t drawnTriangles = 0;           // counters[gpu::kCounterDrawnTriangles]
  uint32_t largeTriangles = 0;           // counters[gpu::kCounterLargeTriangles]
  uint32_t largeTiles = 0;               // counters[gpu::kCounterLargeTiles] (may exceed maxLargeTiles)
};

// Draws triangles [0, min(size, frame.maxTriangles)) with frame's viewProj, lightDir, width,
// height, tilesX, tilesY, rasterMode, backgroundColor, cullBackFaces and largeTriangleArea
// (addresses are ignored). The image and counts are what the GPU gives when the large queue
// does not overflow (maxLargeTiles is not modelled: which tiles are dropped depends on order).
RasterResult rasterizeReference(std::span<const gpu::Triangle> triangles, const gpu::FrameConstants& frame);

// The fewest workgroups of 64 that keep each phase within kMaxIterationsPerInvocation
// (work_limits.hpp) for this frame's sizes; any larger grid is also correct. Throws Error
// when largeTriangleArea leaves no room in the budget.
struct RasterGroups {
  uint32_t clear = 1, small = 1, large = 1, resolve = 1;
};
RasterGroups minimumRasterGroups(const gpu::FrameConstants& frame);

}  // namespace voxen

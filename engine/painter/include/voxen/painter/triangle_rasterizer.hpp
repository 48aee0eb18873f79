#pragma once
// The painter's software rasterizer for triangles that another pass produced on the device:
// the raster and resolve phases of the frame megakernel (shaders/painter/frame.comp,
// raster.glsl) run over a caller's gpu::Triangle buffer whose count is on the device, so a
// producer (BoxInstances, a mesher of one's own) and the rasterizer meet with no trip
// through the CPU. The Painter draws its marching-cubes mesh with the same phases.
//
//   TriangleRasterizer raster(scheduler, {.width = 1280, .height = 720});
//   raster.draw(camera, triangles, count);   // records; the caller submits
//   scheduler.submit();
//   std::vector<uint32_t> rgba = raster.readImage().get();
#include <cstdint>
#include <memory>

#include <glm/glm.hpp>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/painter.hpp"  // RasterMode

namespace voxen {

struct RasterizerOptions {
  uint32_t width = 640, height = 480;             // framebuffer pixels
  uint32_t largeTriangleArea = 256;               // bounding-box pixels above which a triangle is "large"
  uint32_t maxLargeTiles = 1u << 16;              // large-triangle work items per frame
  uint32_t backgroundColor = 0xff302418u;         // RGBA8, red in the low byte
  bool cullBackFaces = true;
  RasterMode rasterMode = RasterMode::Shaded;
  glm::vec3 lightDirection{0.35f, 0.45f, 0.82f};  // towards the light
};

// What the latest draw counted (readCounters()).
struct RasterCounters {
  uint32_t drawnTriangles = 0;  // passed culling, clipping and the screen test
  uint32_t largeTriangles = 0;  // went through the large-triangle queue
  uint32_t largeTiles = 0;      // its work items (more than maxLargeTiles: some were dropped)
};

// The FrameConstants of a draw with these options and this camera over a list of at most
// maxTriangles triangles, without the buffer addresses (what rasterizeReference takes).
gpu::FrameConstants rasterConstants(const RasterizerOptions& options, const Camera& camera, uint32_t maxTriangles);

// The options of the rasterizer inside a Painter with these options.
RasterizerOptions rasterizerOptions(const PainterOptions& options);

namespace detail {
class FrameKernels;
class FrameArena;
}  // namespace detail

class TriangleRasterizer {
 public:
  explicit TriangleRasterizer(Scheduler& scheduler, RasterizerOptions options = {});
  ~TriangleRasterizer();
  TriangleRasterizer(const TriangleRasterizer&) = delete;
  TriangleRasterizer& operator=(const TriangleRasterizer&) = delete;

  const RasterizerOptions& options() const { return options_; }

  // Records (does not submit) clearing the framebuffer and drawing triangles
  // [0, min(count[0], triangles.size / 64)) of `triangles` (gpu::Triangle), `count` a uint32
  // on the device written by earlier GPU work, then resolving into the image. The image of
  // the draw before stays valid until the draw after this one (two slabs in turn).
  void draw(const Camera& camera, const BufferRange& triangles, const BufferRange& count);

  // Results of the latest draw (recorded into the current batch; get() waits).
  BufferRange imageRange() const { return image_; }  // RGBA8 (or triangle ids), row-major, top row first
  Future<uint32_t> readImage();
  RasterCounters readCounters();  // waits

 private:
  Scheduler& scheduler_;
  RasterizerOptions options_;
  std::unique_ptr<detail::FrameKernels> kernels_;
  std::unique_ptr<detail::FrameArena> arena_;
  BufferRange constants_, counters_, framebuffer_, largeQueue_, image_;
};

}  // namespace voxen

#pragma once
// The voxel painter: a density grid painted with a spherical brush, meshed by marching
// cubes (only blocks the brush touched are re-meshed) and drawn by a software rasterizer
// that resolves depth with 64-bit atomicMin, all in one command buffer per frame: the
// phases of the frame megakernel (shaders/painter/frame.comp) with the barriers the
// scheduler derives between them. Everything lives in one FrameArena.
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/painter/camera.hpp"
#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

namespace detail {
class FrameKernels;  // frame_kernel.hpp
class FrameArena;    // frame_arena.hpp
}  // namespace detail

// What a stroke does (Stroke::operation): the operations of FrameConstants::brushMode.
enum class BrushMode : uint32_t { Add = gpu::kBrushAdd, Erase = gpu::kBrushErase };
// What the image shows (PainterOptions::rasterMode, FrameConstants::rasterMode).
enum class RasterMode : uint32_t { Shaded = gpu::kRasterShaded, TriangleId = gpu::kRasterTriangleId };

struct PainterOptions {
  uint32_t gridX = 128, gridY = 128, gridZ = 128;  // samples; multiples of gpu::kBlockCells
  glm::vec3 gridOrigin{0.0f};                      // world position of sample (0, 0, 0)
  float voxelSize = 1.0f;                          // world units between samples
  uint32_t width = 640, height = 480;              // framebuffer pixels
  uint32_t maxTriangles = 1u << 20;                // per frame; more are counted as overflow
  uint32_t largeTriangleArea = 256;                // bounding-box pixels above which a triangle is "large"
  uint32_t maxLargeTiles = 1u << 16;               // large-triangle work items per frame
  uint32_t backgroundColor = 0xff302418u;          // RGBA8, red in the low byte
  bool cullBackFaces = true;
  RasterMode rasterMode = RasterMode::Shaded;
  bool countFragments = false;                     // per-pixel write counts (tests)
  glm::vec3 lightDirection{0.35f, 0.45f, 0.82f};   // towards the light
};

struct Stroke {
  BrushMode operation = BrushMode::Add;
  bool atRayHit = true;            // centre where the ray meets the surface; else at `origin`
  glm::vec3 origin{0.0f};          // the ray's origin, or the centre
  glm::vec3 direction{0.0f, 0.0f, -1.0f};
  float radius = 6.0f;             // world units
  float searchDistance = 1e4f;     // how far along the ray to look for the surface
  uint32_t color = 0xff3c8cf0u;    // RGBA8
};

// Counters of a frame (readCounters()).
struct FrameCounters {
  uint32_t triangles = 0;          // in the mesh
  uint32_t drawnTriangles = 0;     // passed culling
  uint32_t largeTiles = 0;         // large-triangle work items
  uint32_t overflowTriangles = 0;  // did not fit maxTriangles (never silent)
  uint32_t brushVoxels = 0;        // samples the stroke changed
};

// Samples per side of the cube the brush phase covers for a stroke of this radius: the
// sphere and its ramp (density > 0 up to one voxel outside the radius) around the centre
// sample, capped at the grid's largest axis. Shared by Painter::frame and the CPU brush.
uint32_t brushBoxSide(float radius, float voxelSize, uint32_t largestAxis);

// The FrameConstants a frame with these options and this camera draws with, without the
// buffer addresses and the stroke: what the CPU references (cpu_rasterizer.hpp) take.
gpu::FrameConstants viewConstants(const PainterOptions& options, const Camera& camera);

class Painter {
 public:
  Painter(Scheduler& scheduler, PainterOptions options = {});
  ~Painter();
  Painter(const Painter&) = delete;
  Painter& operator=(const Painter&) = delete;

  const PainterOptions& options() const { return options_; }
  uint64_t samples() const { return uint64_t(options_.gridX) * options_.gridY * options_.gridZ; }
  uint32_t blocks() const { return blocksX_ * blocksY_ * blocksZ_; }

  // Replaces the whole grid (x fastest; the outermost layer is forced to 0 so meshes stay
  // closed) and marks every block for meshing.
  void setGrid(const std::vector<float>& density, const std::vector<uint32_t>& color);

  // Records and submits one frame: the stroke (if any), meshing of the changed blocks,
  // rasterization and resolve. Frames are not waited for; read results through futures.
  void frame(const Camera& camera, const Stroke* stroke = nullptr);
  // Forces the next frame to re-mesh every block (the incremental path's reference).
  void markAllDirty();

  // Results of the latest frame (recorded into the next batch; get() waits).
  Future<uint32_t> readImage();           // RGBA8 (or triangle ids), row-major, top row first
  FrameCounters readCounters();           // waits
  Future<gpu::Triangle> readTriangles();       // the mesh (count from readCounters().triangles)
  Future<float> readDensity();
  Future<uint32_t> readColors();
  // Where the latest stroke landed: xyz world, w = 1 when it changed the grid's surface at all
  // (a stroke at a ray that meets nothing has w = 0).
  Future<float> readStrokeCentre();
  Future<uint32_t> readFragmentCounts();  // tiled like the framebuffer (countFragments only)
  BufferRange imageRange() const { return image_; }
  BufferRange trianglesRange() const { return triangles_; }  // the latest frame's mesh
  uint64_t frameIndex() const { return frameIndex_; }

 private:
  void recordMeshing(const BufferRange& constants);

  Scheduler& scheduler_;
  PainterOptions options_;
  std::unique_ptr<detail::FrameKernels> kernels_;
  uint32_t blocksX_, blocksY_, blocksZ_, tilesX_, tilesY_;
  std::unique_ptr<detail::FrameArena> arena_;
  Buffer caseTable_;
  BufferRange density_, color_, blockTable_, brushState_;
  // This frame's allocations, and the triangle list of the frame before.
  BufferRange constants_, counters_, blockTotal_, blockLists_, triangles_, previousTriangles_, framebuffer_,
      fragmentCounts_, largeQueue_, image_;
  bool allDirty_ = true;
  uint64_t frameIndex_ = 0;
};

}  // namespace voxen

#include "voxen/painter/painter.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "voxen/painter/frame_arena.hpp"
#include "voxen/painter/frame_kernel.hpp"
#include "voxen/painter/marching_cubes_table.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

using detail::dispatchPhase;
using detail::FrameArena;
using detail::Phase;
using gpu::FrameConstants;
using gpu::kBlockCells;
using gpu::Triangle;

namespace {

uint32_t divideUp(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

void checkOptions(const PainterOptions& o) {
  auto bad = [](const std::string& field, const std::string& why) { throw Error("painter option " + field + " " + why); };
  for (auto [name, n] : {std::pair{"gridX", o.gridX}, std::pair{"gridY", o.gridY}, std::pair{"gridZ", o.gridZ}})
    if (n < 2 * kBlockCells || n % kBlockCells || n > 4096)
      bad(name, "must be a multiple of " + std::to_string(kBlockCells) + " from 16 to 4096 (got " + std::to_string(n) + ")");
  if (o.width == 0 || o.height == 0 || o.width > 16384 || o.height > 16384)
    bad("width/height", "must be from 1 to 16384 pixels (got " + std::to_string(o.width) + "x" + std::to_string(o.height) + ")");
  if (!(o.voxelSize > 0.0f) || !std::isfinite(o.voxelSize)) bad("voxelSize", "must be positive");
  if (o.maxTriangles == 0) bad("maxTriangles", "must be at least 1");
  if (o.maxLargeTiles == 0) bad("maxLargeTiles", "must be at least 1");
}

gpu::vec4 toVec4(const glm::vec3& v, float w) { return {v.x, v.y, v.z, w}; }

}  // namespace

Painter::Painter(Scheduler& scheduler, PainterOptions options)
    : scheduler_(scheduler), options_(options), kernels_((checkOptions(options), std::make_unique<detail::FrameKernels>(scheduler.library()))) {
  blocksX_ = divideUp(options_.gridX - 1, kBlockCells);
  blocksY_ = divideUp(options_.gridY - 1, kBlockCells);
  blocksZ_ = divideUp(options_.gridZ - 1, kBlockCells);
  tilesX_ = divideUp(options_.width, 8);
  tilesY_ = divideUp(options_.height, 8);
  const uint64_t n = samples();
  const uint64_t pixelsTiled = uint64_t(tilesX_) * tilesY_ * 64;
  using A = FrameArena;
  const VkDeviceSize persistent = A::aligned(n * 4) * 2 + A::aligned(uint64_t(blocks()) * sizeof(gpu::BlockInfo)) +
                                 A::aligned(gpu::kBrushStateVec4s * 16);
  const VkDeviceSize perFrame = A::aligned(sizeof(FrameConstants)) + A::aligned(gpu::kCounterCount * 4) + A::aligned(4) +
                                A::aligned(uint64_t(blocks()) * 4) +
                                A::aligned(uint64_t(options_.maxTriangles) * sizeof(Triangle)) + A::aligned(pixelsTiled * 8) +
                                (options_.countFragments ? A::aligned(pixelsTiled * 4) : 0) +
                                A::aligned(uint64_t(options_.maxLargeTiles) * 8) +
                                A::aligned(uint64_t(options_.width) * options_.height * 4);
  // Two slabs: a frame reads the triangles of the one before (clean blocks are copied) and
  // writes over those of the one before that, in the same place of the same slab (clean
  // blocks whose triangles are still there are not copied: gpu::BlockInfo::olderOffset).
  arena_ = std::make_unique<FrameArena>(scheduler.device(), "painter arena", persistent, perFrame, 2);
  density_ = arena_->persistent(n * 4);
  color_ = arena_->persistent(n * 4);
  blockTable_ = arena_->persistent(uint64_t(blocks()) * sizeof(gpu::BlockInfo));
  brushState_ = arena_->persistent(gpu::kBrushStateVec4s * 16);
  caseTable_ = uploadCaseTable(scheduler);
  scheduler.fill(density_, 0u);
  scheduler.fill(color_, 0u);
  scheduler.fill(brushState_, 0u);
  markAllDirty();
}

Painter::~Painter() = default;

void Painter::markAllDirty() {
  std::vector<gpu::BlockInfo> table(blocks(), gpu::BlockInfo{0, 0, 0, 1, gpu::kNoOffset});
  scheduler_.upload(blockTable_, table.data(), table.size() * sizeof(gpu::BlockInfo));
  allDirty_ = true;
}

void Painter::setGrid(const std::vector<float>& density, const std::vector<uint32_t>& color) {
  const uint64_t n = samples();
  if (density.size() != n || color.size() != n)
    throw Error("painter grid: " + std::to_string(density.size()) + " densities and " + std::to_string(color.size()) +
                " colours given for " + std::to_string(n) + " samples (" + std::to_string(options_.gridX) + "x" +
                std::to_string(options_.gridY) + "x" + std::to_string(options_.gridZ) + ")");
  std::vector<float> field(density);
  const uint32_t nx = options_.gridX, ny = options_.gridY, nz = options_.gridZ;
  for (uint32_t z = 0; z < nz; ++z)
    for (uint32_t y = 0; y < ny; ++y)
      for (uint32_t x = 0; x < nx; ++x) {
        float& d = field[x + uint64_t(nx) * (y + uint64_t(ny) * z)];
        const bool border = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
        if (border || !std::isfinite(d)) d = 0.0f;
        d = std::clamp(d, 0.0f, 1.0f);
      }
  scheduler_.upload(density_, field.data(), n * 4);
  scheduler_.upload(color_, color.data(), n * 4);
  markAllDirty();
}

uint32_t brushBoxSide(float radius, float voxelSize, uint32_t largestAxis) {
  const uint32_t reach = uint32_t(std::ceil(radius / voxelSize));
  return std::min<uint32_t>(2 * reach + 3, largestAxis);
}

FrameConstants viewConstants(const PainterOptions& options, const Camera& camera) {
  // The rasterizer's constants (triangle_rasterizer.cpp), plus the grid's.
  FrameConstants f = rasterConstants(rasterizerOptions(options), camera, options.maxTriangles);
  f.gridOrigin = toVec4(options.gridOrigin, options.voxelSize);
  f.gridX = options.gridX, f.gridY = options.gridY, f.gridZ = options.gridZ;
  return f;
}

void Painter::frame(const Camera& camera, const Stroke* stroke) {
  const BufferRange lastTriangles = triangles_;
  arena_->beginFrame();
  constants_ = arena_->frame(sizeof(FrameConstants));
  counters_ = arena_->frame(gpu::kCounterCount * 4);
  blockTotal_ = arena_->frame(4);
  blockLists_ = arena_->frame(uint64_t(blocks()) * 4);
  triangles_ = arena_->frame(uint64_t(options_.maxTriangles) * sizeof(Triangle));
  const uint64_t pixelsTiled = uint64_t(tilesX_) * tilesY_ * 64;
  framebuffer_ = arena_->frame(pixelsTiled * 8);
  fragmentCounts_ = options_.countFragments ? arena_->frame(pixelsTiled * 4) : BufferRange{};
  largeQueue_ = arena_->frame(uint64_t(options_.maxLargeTiles) * 8);
  image_ = arena_->frame(uint64_t(options_.width) * options_.height * 4);
  // The first frame re-meshes everything, so its "previous" list is never read.
  previousTriangles_ = lastTriangles.buffer ? lastTriangles : triangles_;

  FrameConstants f = viewConstants(options_, camera);
  uint32_t brushGroups = 0;
  if (stroke && (stroke->operation == BrushMode::Add || stroke->operation == BrushMode::Erase) && stroke->radius > 0.0f) {
    f.brushRayOrigin = toVec4(stroke->origin, stroke->radius);
    const glm::vec3 direction = glm::length(stroke->direction) > 0.0f ? glm::normalize(stroke->direction) : glm::vec3(0, 0, -1);
    f.brushRayDir = toVec4(direction, stroke->searchDistance);
    f.brushColor = stroke->color;
    f.brushMode = uint32_t(stroke->operation) | (stroke->atRayHit ? gpu::kBrushAtRayHit : 0u);
    f.brushBoxSide = brushBoxSide(stroke->radius, options_.voxelSize, std::max({options_.gridX, options_.gridY, options_.gridZ}));
    brushGroups = divideUp(uint64_t(f.brushBoxSide) * f.brushBoxSide * f.brushBoxSide, 64);
  }
  f.blocksX = blocksX_, f.blocksY = blocksY_, f.blocksZ = blocksZ_;
  f.density = density_.address;
  f.color = color_.address;
  f.blocks = blockTable_.address;
  f.triangles = triangles_.address;
  f.previousTriangles = previousTriangles_.address;
  f.counters = counters_.address;
  f.framebuffer = framebuffer_.address;
  f.largeQueue = largeQueue_.address;
  f.image = image_.address;
  f.fragmentCounts = options_.countFragments ? fragmentCounts_.address : 0;
  f.blockTotal = blockTotal_.address;
  f.brushState = brushState_.address;
  f.caseTable = caseTable_.address();
  f.blockLists = blockLists_.address;
  scheduler_.upload(constants_, &f, sizeof(f));
  scheduler_.fill(counters_, 0u);

  const BufferRange arena = arena_->buffer().range();
  if (brushGroups > 0) {
    dispatchPhase(scheduler_, *kernels_, Phase::Brush, constants_, 0, 1, {readsWrites(arena)});
    dispatchPhase(scheduler_, *kernels_, Phase::Brush, constants_, 1, brushGroups, {readsWrites(arena)});
  }
  recordMeshing(constants_);
  detail::recordRasterPhases(scheduler_, *kernels_, constants_, f, framebuffer_, fragmentCounts_, {readsWrites(arena)});
  allDirty_ = false;
  ++frameIndex_;
  scheduler_.submit();
}

void Painter::recordMeshing(const BufferRange& constants) {
  const BufferRange arena = arena_->buffer().range();
  const std::vector<BufferUse> uses{readsWrites(arena), reads(caseTable_)};
  const uint64_t listGroups = detail::meshListGroups(blocks());
  dispatchPhase(scheduler_, *kernels_, Phase::MeshList, constants, 0, divideUp(blocks(), gpu::kFrameGroupSize), uses);
  dispatchPhase(scheduler_, *kernels_, Phase::MeshCount, constants, 0, listGroups, uses);
  dispatchPhase(scheduler_, *kernels_, Phase::MeshScan, constants, 0, 1, uses);
  dispatchPhase(scheduler_, *kernels_, Phase::MeshCopy, constants, 0, listGroups, uses);
  dispatchPhase(scheduler_, *kernels_, Phase::MeshEmit, constants, 0, listGroups, uses);
}

Future<uint32_t> Painter::readImage() {
  if (!image_.buffer) throw Error("painter: readImage() before the first frame");
  return scheduler_.readback<uint32_t>(image_);
}

FrameCounters Painter::readCounters() {
  if (!counters_.buffer) throw Error("painter: readCounters() before the first frame");
  auto counters = scheduler_.readback<uint32_t>(counters_);
  auto total = scheduler_.readback<uint32_t>(blockTotal_);
  const std::vector<uint32_t> c = counters.get();
  FrameCounters result;
  result.triangles = std::min(total.get()[0], options_.maxTriangles);
  result.drawnTriangles = c[gpu::kCounterDrawnTriangles];
  result.largeTiles = c[gpu::kCounterLargeTiles];
  result.overflowTriangles = c[gpu::kCounterOverflow];
  result.brushVoxels = c[gpu::kCounterBrushVoxels];
  return result;
}

Future<Triangle> Painter::readTriangles() {
  if (!triangles_.buffer) throw Error("painter: readTriangles() before the first frame");
  return scheduler_.readback<Triangle>(triangles_);
}

Future<float> Painter::readDensity() { return scheduler_.readback<float>(density_); }

Future<uint32_t> Painter::readColors() { return scheduler_.readback<uint32_t>(color_); }

Future<float> Painter::readStrokeCentre() { return scheduler_.readback<float>(brushState_.first(16)); }

Future<uint32_t> Painter::readFragmentCounts() {
  if (!options_.countFragments) throw Error("painter: fragment counts are off (PainterOptions::countFragments)");
  return scheduler_.readback<uint32_t>(fragmentCounts_);
}

}  // namespace voxen

#include "voxen/painter/triangle_rasterizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "voxen/host/error.hpp"
#include "voxen/painter/frame_arena.hpp"
#include "voxen/painter/frame_kernel.hpp"

namespace voxen {

using detail::FrameArena;
using gpu::FrameConstants;

namespace {

void checkOptions(const RasterizerOptions& o) {
  auto bad = [](const std::string& field, const std::string& why) { throw Error("rasterizer option " + field + " " + why); };
  if (o.width == 0 || o.height == 0 || o.width > 16384 || o.height > 16384)
    bad("width/height", "must be from 1 to 16384 pixels (got " + std::to_string(o.width) + "x" + std::to_string(o.height) + ")");
  if (o.maxLargeTiles == 0) bad("maxLargeTiles", "must be at least 1");
  if (!(glm::length(o.lightDirection) > 0.0f)) bad("lightDirection", "must be a non-zero vector");
}

gpu::vec4 toVec4(const glm::vec3& v, float w) { return {v.x, v.y, v.z, w}; }

}  // namespace

FrameConstants rasterConstants(const RasterizerOptions& options, const Camera& camera, uint32_t maxTriangles) {
  FrameConstants f{};
  const glm::mat4 viewProj = camera.viewProj(options.width, options.height);
  std::memcpy(f.viewProj, &viewProj[0][0], sizeof(f.viewProj));
  f.cameraPos = toVec4(camera.eye, 1.0f);
  f.lightDir = toVec4(glm::normalize(options.lightDirection), 0.0f);
  f.width = options.width, f.height = options.height;
  f.tilesX = (options.width + 7) / 8, f.tilesY = (options.height + 7) / 8;
  f.rasterMode = uint32_t(options.rasterMode);
  f.maxTriangles = maxTriangles;
  f.backgroundColor = options.backgroundColor;
  f.cullBackFaces = options.cullBackFaces ? 1u : 0u;
  f.largeTriangleArea = options.largeTriangleArea;
  f.maxLargeTiles = options.maxLargeTiles;
  return f;
}

RasterizerOptions rasterizerOptions(const PainterOptions& o) {
  RasterizerOptions r;
  r.width = o.width, r.height = o.height;
  r.largeTriangleArea = o.largeTriangleArea;
  r.maxLargeTiles = o.maxLargeTiles;
  r.backgroundColor = o.backgroundColor;
  r.cullBackFaces = o.cullBackFaces;
  r.rasterMode = o.rasterMode;
  r.lightDirection = o.lightDirection;
  return r;
}

TriangleRasterizer::TriangleRasterizer(Scheduler& scheduler, RasterizerOptions options)
    : scheduler_(scheduler),
      options_(options),
      kernels_((checkOptions(options), std::make_unique<detail::FrameKernels>(scheduler.library()))) {
  using A = FrameArena;
  const uint64_t pixelsTiled = uint64_t((options_.width + 7) / 8) * ((options_.height + 7) / 8) * 64;
  const VkDeviceSize perFrame = A::aligned(sizeof(FrameConstants)) + A::aligned(gpu::kCounterCount * 4) +
                                A::aligned(pixelsTiled * 8) + A::aligned(uint64_t(options_.maxLargeTiles) * 8) +
                                A::aligned(uint64_t(options_.width) * options_.height * 4);
  // Two slabs: the latest image stays readable (and presentable) while the next draw is recorded.
  arena_ = std::make_unique<FrameArena>(scheduler.device(), "rasterizer arena", 0, perFrame, 2);
}

TriangleRasterizer::~TriangleRasterizer() = default;

void TriangleRasterizer::draw(const Camera& camera, const BufferRange& triangles, const BufferRange& count) {
  if (!triangles.buffer || triangles.size < sizeof(gpu::Triangle))
    throw Error("rasterizer: the triangle range holds no gpu::Triangle (" + std::to_string(triangles.size) + " bytes)");
  if (!count.buffer || count.size < 4) throw Error("rasterizer: the triangle count range must hold a uint32");
  // The shader clamps the device's count to maxTriangles: the range's capacity, so a count
  // larger than the buffer never reads past it.
  const uint32_t capacity = uint32_t(std::min<uint64_t>(triangles.size / sizeof(gpu::Triangle), UINT32_MAX));
  arena_->beginFrame();
  constants_ = arena_->frame(sizeof(FrameConstants));
  counters_ = arena_->frame(gpu::kCounterCount * 4);
  framebuffer_ = arena_->frame(uint64_t((options_.width + 7) / 8) * ((options_.height + 7) / 8) * 64 * 8);
  largeQueue_ = arena_->frame(uint64_t(options_.maxLargeTiles) * 8);
  image_ = arena_->frame(uint64_t(options_.width) * options_.height * 4);

  FrameConstants f = rasterConstants(options_, camera, capacity);
  f.triangles = triangles.address;
  f.blockTotal = count.address;  // the raster phases' triangle count (the Painter's mesh total)
  f.counters = counters_.address;
  f.framebuffer = framebuffer_.address;
  f.largeQueue = largeQueue_.address;
  f.image = image_.address;
  scheduler_.upload(constants_, &f, sizeof f);
  scheduler_.fill(counters_, 0u);
  detail::recordRasterPhases(scheduler_, *kernels_, constants_, f, framebuffer_, {},
                             {readsWrites(arena_->buffer().range()), reads(triangles), reads(count)});
}

Future<uint32_t> TriangleRasterizer::readImage() {
  if (!image_.buffer) throw Error("rasterizer: readImage() before the first draw");
  return scheduler_.readback<uint32_t>(image_);
}

RasterCounters TriangleRasterizer::readCounters() {
  if (!counters_.buffer) throw Error("rasterizer: readCounters() before the first draw");
  const std::vector<uint32_t> c = scheduler_.readback<uint32_t>(counters_).get();
  return {c[gpu::kCounterDrawnTriangles], c[gpu::kCounterLargeTriangles], c[gpu::kCounterLargeTiles]};
}

}  // namespace voxen

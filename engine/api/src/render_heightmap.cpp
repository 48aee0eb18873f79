#include "voxen/render_heightmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "render_heightmap_legend.hpp"
#include "render_legend.hpp"
#include "render_options_check.hpp"
#include "voxen/context.hpp"
#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/normal_encoding.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/painter/view_framing.hpp"

namespace voxen {

namespace {

// A light background, so that black (lethal) and grey (unknown) cells stand out from it.
constexpr uint32_t kBackground = 0xffece4deu;  // RGBA8, red in the low byte: (222, 228, 236)


// The mesh as the rasterizer's triangles, relative to `offset` (floats keep their precision
// near it): one colour per triangle, its first vertex's; flat normals.
std::vector<gpu::Triangle> rasterTriangles(const HeightmapMesh& mesh, const glm::dvec3& offset) {
  std::vector<gpu::Triangle> out(mesh.triangles.size());
  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    glm::vec3 p[3];
    for (int k = 0; k < 3; ++k) p[k] = glm::vec3(mesh.positions[tri[k]] - offset);
    const glm::vec3 n = glm::cross(p[1] - p[0], p[2] - p[0]);
    const uint32_t normal = encodeNormal(n.x, n.y, n.z);
    gpu::Triangle& g = out[t];
    std::memcpy(g.p0, &p[0], 12), std::memcpy(g.p1, &p[1], 12), std::memcpy(g.p2, &p[2], 12);
    g.n0 = g.n1 = g.n2 = normal;
    const auto& c = mesh.colours[tri[0]];
    g.color = 0xff000000u | uint32_t(c[2]) << 16 | uint32_t(c[1]) << 8 | c[0];
    g.cell = uint32_t(t);
  }
  return out;
}

struct Bounds {
  glm::dvec3 lo{0.0}, hi{0.0};
};

Bounds meshBounds(const HeightmapMesh& mesh) {
  Bounds b;
  if (mesh.positions.empty()) return b;
  b.lo = b.hi = mesh.positions.front();
  for (const glm::dvec3& p : mesh.positions) b.lo = glm::min(b.lo, p), b.hi = glm::max(b.hi, p);
  return b;
}

// The squares' centres (every 4th vertex pair of a square: corners 0 and 2), at most about
// 200,000 of them: what the perspective view frames.
std::vector<glm::vec3> framingPoints(const HeightmapMesh& mesh, const glm::dvec3& offset) {
  std::vector<glm::vec3> points;
  const uint64_t every = std::max<uint64_t>(1, mesh.cells / 200000);
  for (uint64_t cell = 0; cell < mesh.cells; cell += every) {
    const glm::dvec3 centre = 0.5 * (mesh.positions[cell * 4] + mesh.positions[cell * 4 + 2]);
    points.push_back(glm::vec3(centre - offset));
  }
  return points;
}

Camera chooseCamera(const HeightmapMesh& mesh, const Bounds& b, const glm::dvec3& offset, const RenderOptions& o, float aspect) {
  const glm::vec3 lo(b.lo - offset), hi(b.hi - offset);
  if (o.eye) return frameEyeTarget(glm::vec3(*o.eye - offset), glm::vec3(*o.target - offset), lo, hi, o.fovDegrees);
  if (o.view == RenderView::Top) return frameTopDown(lo, hi, aspect);
  return framePoints(framingPoints(mesh, offset), lo, hi, kRenderViewDirection, o.fovDegrees, aspect);
}

struct Drawn {
  std::vector<uint32_t> pixels;
  RasterCounters counters;
};

// Draws the triangles; when the large-triangle queue overflowed (a close view of big cells),
// once more with room for every work item the first draw counted.
Drawn draw(Scheduler& scheduler, const std::vector<gpu::Triangle>& triangles, const Camera& camera, uint32_t width, uint32_t height) {
  Buffer triangleBuffer(scheduler.device(), "heightmap render triangles", std::max<size_t>(1, triangles.size()) * sizeof(gpu::Triangle));
  Buffer countBuffer(scheduler.device(), "heightmap render triangle count", 4);
  const uint32_t count = uint32_t(triangles.size());
  if (!triangles.empty()) scheduler.upload(triangleBuffer.range(), triangles.data(), triangles.size() * sizeof(gpu::Triangle));
  scheduler.upload(countBuffer.range(), &count, 4);
  RasterizerOptions options;
  options.width = width, options.height = height;
  options.backgroundColor = kBackground;
  options.cullBackFaces = false;  // an open edge never shows a hole where a face turns away
  for (int attempt = 0;; ++attempt) {
    TriangleRasterizer raster(scheduler, options);
    raster.draw(camera, triangleBuffer.range(), countBuffer.range());
    Drawn drawn{raster.readImage().get(), raster.readCounters()};
    if (drawn.counters.largeTiles <= options.maxLargeTiles || attempt > 0) return drawn;
    options.maxLargeTiles = drawn.counters.largeTiles;
  }
}

// RenderImage's framing fields, as renderMap sets them.
void placeImage(RenderImage& image, const Camera& camera, const glm::dvec3& offset, uint32_t plotHeight) {
  image.eye = glm::dvec3(camera.eye) + offset;
  image.target = glm::dvec3(camera.target) + offset;
  image.view = camera.orthographic ? RenderView::Top : RenderView::Perspective;
  detail::setPlotScale(image, camera.orthographic, double(camera.orthoHeight), double(camera.fovYDegrees), plotHeight);
}

}  // namespace

HeightmapRenderImage renderHeightmap(Context& context, const Heightmap& heightmap, const RenderOptions& o,
                                     const HeightmapMeshOptions& meshOptions) {
  checkRenderOptions(o, "the heightmap", false);
  const HeightmapMesh mesh = heightmapMesh(heightmap, meshOptions);
  const uint64_t bytes = mesh.triangles.size() * sizeof(gpu::Triangle);
  if (context.memoryBudgetBytes() > 0 && bytes > context.memoryBudgetBytes())
    throw Error("render: the heightmap's mesh needs " + std::to_string(bytes >> 20) + " MiB of triangles, more than the memory budget; " +
                context.memoryHint());
  std::optional<detail::LegendLayout> legend;
  if (o.legend) legend = detail::legendLayout(o.width, o.height);
  const uint32_t plotHeight = o.height - (legend ? legend->bandHeight : 0);
  const Bounds bounds = meshBounds(mesh);
  const glm::dvec3 offset = glm::floor(0.5 * (bounds.lo + bounds.hi));
  const Camera camera = chooseCamera(mesh, bounds, offset, o, float(o.width) / float(plotHeight));
  const Drawn drawn = draw(context.scheduler(), rasterTriangles(mesh, offset), camera, o.width, plotHeight);

  HeightmapRenderImage out;
  RenderImage& image = out.image;
  image.width = o.width, image.height = o.height, image.plotHeight = plotHeight;
  image.pixels.resize(size_t(o.width) * o.height * 4);
  std::memcpy(image.pixels.data(), drawn.pixels.data(), drawn.pixels.size() * 4);
  image.occupiedVoxels = mesh.cells;
  image.triangles = uint32_t(mesh.triangles.size());
  image.drawnTriangles = drawn.counters.drawnTriangles;
  image.frames = 1;
  image.occupiedMin = bounds.lo, image.occupiedMax = bounds.hi;
  image.heightMin = mesh.heightMin, image.heightMax = mesh.heightMax;
  placeImage(image, camera, offset, plotHeight);
  out.cells = mesh.cells, out.joins = mesh.joins, out.risers = mesh.risers;
  out.lethal = mesh.lethal, out.unknown = mesh.unknown;
  if (legend) detail::drawHeightmapLegend(out, *legend, meshOptions.colouring, camera.orthographic ? "" : " at the target");
  return out;
}

}  // namespace voxen

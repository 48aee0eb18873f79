#include "voxen/render_tsdf.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "render_legend.hpp"
#include "render_options_check.hpp"
#include "voxen/context.hpp"
#include "voxen/export/raster_canvas.hpp"
#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/normal_encoding.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/painter/view_framing.hpp"

namespace voxen {

namespace {

// renderHeightmap's light background: the height ramp's blue and red both stand out from it.
constexpr uint32_t kBackground = 0xffece4deu;  // RGBA8, red in the low byte: (222, 228, 236)


// The faces drawn (all, or those inside the crop) and the bounds of their vertices.
struct Selection {
  std::vector<uint32_t> faces;
  std::vector<uint8_t> vertexDrawn;
  uint64_t vertices = 0;
  glm::dvec3 lo{0.0}, hi{0.0};
};

Selection selectFaces(const TsdfMesh& mesh, const RenderOptions& o) {
  Selection s;
  s.vertexDrawn.assign(mesh.positions.size(), 0);
  auto inside = [&](uint32_t v) {
    if (!o.cropMin) return true;
    const glm::dvec3 p(mesh.positions[v]);
    return glm::all(glm::greaterThanEqual(p, *o.cropMin)) && glm::all(glm::lessThanEqual(p, *o.cropMax));
  };
  for (uint32_t f = 0; f < mesh.faces.size(); ++f) {
    const glm::uvec3& face = mesh.faces[f];
    if (!(inside(face.x) && inside(face.y) && inside(face.z))) continue;
    s.faces.push_back(f);
    for (int k = 0; k < 3; ++k) s.vertexDrawn[face[k]] = 1;
  }
  bool first = true;
  for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
    if (!s.vertexDrawn[v]) continue;
    const glm::dvec3 p(mesh.positions[v]);
    s.lo = first ? p : glm::min(s.lo, p), s.hi = first ? p : glm::max(s.hi, p);
    first = false;
    ++s.vertices;
  }
  return s;
}

uint32_t packRgba(const glm::vec3& rgb) {
  const glm::uvec3 c(glm::clamp(glm::round(rgb), glm::vec3(0.0f), glm::vec3(255.0f)));
  return 0xff000000u | c.z << 16 | c.y << 8 | c.x;
}

// The faces as the rasterizer's triangles, relative to `offset` (floats keep their precision
// near it), with the mesh's vertex normals, turned toward the camera where they look away
// from it (the face's three summed): lit from both sides, so a wall or ceiling seen from behind (the far side of
// a scan) reads as a surface rather than a dark hole.
std::vector<gpu::Triangle> rasterTriangles(const TsdfMesh& mesh, const Selection& s, const glm::dvec3& offset, bool meshColours,
                                           const Camera& camera) {
  std::vector<gpu::Triangle> out(s.faces.size());
  const double span = s.hi.z - s.lo.z;
  for (size_t t = 0; t < s.faces.size(); ++t) {
    const glm::uvec3& face = mesh.faces[s.faces[t]];
    gpu::Triangle& g = out[t];
    float* positions[3] = {g.p0, g.p1, g.p2};
    uint32_t* normals[3] = {&g.n0, &g.n1, &g.n2};
    glm::vec3 colour(0.0f), p[3];
    double height = 0.0;
    for (int k = 0; k < 3; ++k) p[k] = glm::vec3(glm::dvec3(mesh.positions[face[k]]) - offset);
    const glm::vec3 view = camera.orthographic ? camera.target - camera.eye : p[0] - camera.eye;
    const glm::vec3 facing = mesh.normals[face.x] + mesh.normals[face.y] + mesh.normals[face.z];
    const float side = glm::dot(facing, view) > 0.0f ? -1.0f : 1.0f;
    for (int k = 0; k < 3; ++k) {
      std::memcpy(positions[k], &p[k], 12);
      const glm::vec3 n = side * mesh.normals[face[k]];
      *normals[k] = encodeNormal(n.x, n.y, n.z);
      if (meshColours) colour += glm::vec3(mesh.colours[face[k]]) / 3.0f;
      height += mesh.positions[face[k]].z / 3.0;
    }
    g.color = meshColours ? packRgba(colour) : heightColor(span > 0.0 ? float((height - s.lo.z) / span) : 0.5f);
    g.cell = uint32_t(s.faces[t]);
  }
  return out;
}

// Up to 200,000 of the drawn vertices, evenly taken: what the perspective view frames.
std::vector<glm::vec3> framingPoints(const TsdfMesh& mesh, const Selection& s, const glm::dvec3& offset) {
  std::vector<glm::vec3> points;
  const uint64_t every = std::max<uint64_t>(1, s.vertices / 200000);
  uint64_t seen = 0;
  for (uint32_t v = 0; v < mesh.positions.size(); ++v)
    if (s.vertexDrawn[v] && seen++ % every == 0) points.push_back(glm::vec3(glm::dvec3(mesh.positions[v]) - offset));
  return points;
}

Camera chooseCamera(const TsdfMesh& mesh, const Selection& s, const glm::dvec3& offset, const RenderOptions& o, float aspect) {
  const glm::vec3 lo(s.lo - offset), hi(s.hi - offset);
  if (o.eye) return frameEyeTarget(glm::vec3(*o.eye - offset), glm::vec3(*o.target - offset), lo, hi, o.fovDegrees);
  if (o.view == RenderView::Top) return frameTopDown(lo, hi, aspect);
  return framePoints(framingPoints(mesh, s, offset), lo, hi, kRenderViewDirection, o.fovDegrees, aspect);
}

struct Drawn {
  std::vector<uint32_t> pixels;
  RasterCounters counters;
};

// Draws the triangles; when the large-triangle queue overflowed (a close view), once more
// with room for every work item the first draw counted (as renderHeightmap does).
Drawn draw(Scheduler& scheduler, const std::vector<gpu::Triangle>& triangles, const Camera& camera, uint32_t width, uint32_t height) {
  Buffer triangleBuffer(scheduler.device(), "tsdf render triangles", std::max<size_t>(1, triangles.size()) * sizeof(gpu::Triangle));
  Buffer countBuffer(scheduler.device(), "tsdf render triangle count", 4);
  const uint32_t count = uint32_t(triangles.size());
  if (!triangles.empty()) scheduler.upload(triangleBuffer.range(), triangles.data(), triangles.size() * sizeof(gpu::Triangle));
  scheduler.upload(countBuffer.range(), &count, 4);
  RasterizerOptions options;
  options.width = width, options.height = height;
  options.backgroundColor = kBackground;
  options.cullBackFaces = false;
  for (int attempt = 0;; ++attempt) {
    TriangleRasterizer raster(scheduler, options);
    raster.draw(camera, triangleBuffer.range(), countBuffer.range());
    Drawn drawn{raster.readImage().get(), raster.readCounters()};
    if (drawn.counters.largeTiles <= options.maxLargeTiles || attempt > 0) return drawn;
    options.maxLargeTiles = drawn.counters.largeTiles;
  }
}

// The legend of a picture in the mesh's own colours: renderMap's band (scale bar), its height
// colour bar covered by a note that the colours are the map's, which no bar could read.
void drawColourNote(RenderImage& image, const detail::LegendLayout& layout) {
  const uint32_t t = layout.textSize, pad = 6 * t;
  const uint32_t width = std::min<uint32_t>(200 * t, uint32_t(image.width * 0.45)) + 2 * pad;
  detail::Canvas canvas(width, layout.bandHeight - 1, detail::kWhite);
  canvas.text(pad + 1, pad + 1, "colours: the map's own", t, detail::kBlack);
  const std::vector<uint8_t>& rgb = canvas.rgb();
  const uint32_t top = image.height - layout.bandHeight + 1;  // below the line where the map ends
  for (uint32_t row = 0; row < canvas.height(); ++row)
    for (uint32_t column = 0; column < width; ++column) {
      const size_t from = (size_t(row) * width + column) * 3, to = ((size_t(top) + row) * image.width + column) * 4;
      image.pixels[to] = rgb[from], image.pixels[to + 1] = rgb[from + 1], image.pixels[to + 2] = rgb[from + 2];
    }
}

}  // namespace

TsdfRenderImage renderTsdfMesh(Context& context, const TsdfMesh& mesh, const RenderOptions& o, const TsdfRenderOptions& tsdf) {
  checkRenderOptions(o, "the mesh", true);
  const Selection selection = selectFaces(mesh, o);
  const uint64_t bytes = selection.faces.size() * sizeof(gpu::Triangle);
  if (context.memoryBudgetBytes() > 0 && bytes > context.memoryBudgetBytes())
    throw Error("render: the TSDF mesh needs " + std::to_string(bytes >> 20) + " MiB of triangles, more than the memory budget; " +
                context.memoryHint());
  const bool meshColours =
      tsdf.colouring == TsdfColouring::Auto && !mesh.colours.empty() && mesh.colours.size() == mesh.positions.size();
  std::optional<detail::LegendLayout> legend;
  if (o.legend) legend = detail::legendLayout(o.width, o.height);
  const uint32_t plotHeight = o.height - (legend ? legend->bandHeight : 0);
  const glm::dvec3 offset = glm::floor(0.5 * (selection.lo + selection.hi));
  const Camera camera = chooseCamera(mesh, selection, offset, o, float(o.width) / float(plotHeight));
  const Drawn drawn =
      draw(context.scheduler(), rasterTriangles(mesh, selection, offset, meshColours, camera), camera, o.width, plotHeight);

  TsdfRenderImage out;
  out.vertices = mesh.positions.size(), out.faces = mesh.faces.size(), out.meshColours = meshColours;
  RenderImage& image = out.image;
  image.width = o.width, image.height = o.height, image.plotHeight = plotHeight;
  image.pixels.resize(size_t(o.width) * o.height * 4);
  std::memcpy(image.pixels.data(), drawn.pixels.data(), drawn.pixels.size() * 4);
  image.occupiedVoxels = selection.vertices;
  image.triangles = uint32_t(selection.faces.size());
  image.drawnTriangles = drawn.counters.drawnTriangles;
  image.frames = 1;
  image.occupiedMin = selection.lo, image.occupiedMax = selection.hi;
  image.heightMin = selection.lo.z, image.heightMax = selection.hi.z;
  image.eye = glm::dvec3(camera.eye) + offset;
  image.target = glm::dvec3(camera.target) + offset;
  image.view = camera.orthographic ? RenderView::Top : RenderView::Perspective;
  detail::setPlotScale(image, camera.orthographic, double(camera.orthoHeight), double(camera.fovYDegrees), plotHeight);
  if (legend) {
    detail::drawLegend(image, *legend, camera.orthographic ? "" : " at the target");
    if (meshColours) drawColourNote(image, *legend);
  }
  return out;
}

}  // namespace voxen

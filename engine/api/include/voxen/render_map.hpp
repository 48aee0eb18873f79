#pragma once
// A map drawn to an RGBA picture: its occupied voxels become a density grid, marching cubes
// meshes it on the GPU and the software rasterizer draws it (the painter). renderMap sizes
// every buffer itself: the grid against the memory budget (before allocating), the triangle
// buffer from the occupied voxels, grown and drawn again when the mesh has more triangles
// than that, so no triangle is ever dropped.
//
//   voxen::RenderImage image = voxen::renderMap(ctx, mapper.map(), {.width = 640, .height = 480});
//   voxen::writePng("map.png", image.width, image.height, image.pixels, voxen::PngFormat::Rgba8);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace voxen {

class Context;
class OccupancyMap;

// The default camera's view: from above and to the side in perspective, or an orthographic
// plan straight down (x to the right, y up; every pixel RenderImage::metresPerPixel wide).
enum class RenderView { Perspective, Top };

struct RenderOptions {
  uint32_t width = 1280, height = 720;  // pixels, 16 to 16384
  float fovDegrees = 50.0f;             // vertical field of view, (0, 180)
  // Eye and target in map metres; unset: a view framing where most occupied voxels are.
  std::optional<glm::dvec3> eye{}, target{};
  // Draw only the voxels inside this box (map metres, min corner below max on every axis).
  std::optional<glm::dvec3> cropMin{}, cropMax{};
  // The largest density grid to build, in samples (8 bytes each); the grid and the map must
  // also fit the Context's memory budget.
  uint64_t maxSamples = 64ull << 20;
  // How the error ends when the grid does not fit the budget; empty: the Context's memory
  // hint, or a crop (RenderOptions::cropMin/cropMax).
  std::string budgetHint{};
  // Triangles the first frame reserves room for; 0: from the occupied voxels (12 each, which
  // covers every voxel's exposed faces). A frame whose mesh has more is drawn again with
  // room for all of them.
  uint32_t initialTriangleBudget = 0;
  // Without eye/target: the view framed to fill the picture (the occupied voxels' bulk, 1st
  // to 99th percentile per axis). Top cannot take an eye and a target.
  RenderView view = RenderView::Perspective;
  // A white band along the bottom of the picture with the height colour bar (metres) and a
  // scale bar; the map is framed in the rows above it. Drawn on the host after the render is
  // read back. Needs at least 320 pixels of width and a band a third of the height at most.
  bool legend = false;
};

struct RenderImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // RGBA8, row-major, top row first: width * height * 4 bytes
  // What was drawn: the occupied voxels on the grid, the mesh's triangles and those that
  // passed culling (0: nothing in view, or nothing to draw), the frames drawn (2 when the
  // triangle buffer had to grow).
  uint64_t occupiedVoxels = 0;
  uint32_t triangles = 0, drawnTriangles = 0;
  uint32_t frames = 0;
  uint32_t grid[3] = {0, 0, 0};  // density grid samples per axis
  // Bounds of the occupied voxels drawn (map metres), and the camera used (map metres).
  glm::dvec3 occupiedMin{0.0}, occupiedMax{0.0};
  glm::dvec3 eye{0.0}, target{0.0};
  RenderView view = RenderView::Perspective;
  // Rows showing the map (from the top); the legend band, if any, is below them.
  uint32_t plotHeight = 0;
  // Metres a pixel spans: exact across the top view; in perspective, at the target's depth
  // (the framed map's centre).
  double metresPerPixel = 0.0;
  // Top view: world x and y of the picture's top-left corner. Pixel column c, row r (top row
  // 0) covers x in plotLeft + [c, c + 1] * metresPerPixel, y in plotTop - [r + 1, r] * metresPerPixel.
  double plotLeft = 0.0, plotTop = 0.0;
  // The height colours' ends: the lowest and highest occupied voxel centres drawn (metres).
  double heightMin = 0.0, heightMax = 0.0;
  // The legend's scale bar length in metres (0 without a legend).
  double scaleMetres = 0.0;
};

// Throws SettingError naming the RenderOptions field for a value out of range, and Error
// when the grid would not fit the memory budget or maxSamples (naming the sizes).
RenderImage renderMap(Context& context, const OccupancyMap& map, const RenderOptions& options = {});

// Whether a picture of this size holds the legend (RenderOptions::legend) above a map: at
// least 320 pixels wide, the band at most a third of the height.
bool renderLegendFits(uint32_t width, uint32_t height);

}  // namespace voxen

// voxen::renderHeightmap (voxen/render_heightmap.hpp): a hand-made heightmap, half free and
// half lethal, drawn from the top through the painter's rasterizer. The free cells' pixels
// are their cost colour (the --cost-png ramp) shaded for an upward face, the lethal ones
// black, outside the background; by height the lethal half takes the height colour; the
// legend band holds the cost ramp and the lethal swatch; a level the heightmap lacks is a
// SettingError naming the level.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/render_heightmap.hpp"

namespace {

using namespace voxen;
using Rgb3 = std::array<uint8_t, 3>;

// 8 x 4 columns at 0.25 m from voxel (4, 8), flat at 0.5 m: x < 4 cost 0, x >= 4 lethal,
// level 1 nowhere.
Heightmap halfLethal() {
  HeightmapGrid grid;
  grid.gridX = 4, grid.gridY = 8, grid.width = 8, grid.height = 4, grid.zLow = 0, grid.zHigh = 20, grid.resolution = 0.25;
  grid.levels = 2;
  Heightmap hm(grid, HeightmapOptions{});
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      gpu::HeightmapCell& c = hm.cell(0, x, y);
      c.flags = gpu::kLevelPresent;
      c.height = 2 * gpu::kHeightUnits;
      c.room = 20;
      c.cost = x < 4 ? 0 : gpu::kCostLethal;
      c.stepEast = x + 1 < 8 ? 0 : gpu::kNoNeighbour, c.stepWest = x > 0 ? 0 : gpu::kNoNeighbour;
      c.stepNorth = y + 1 < 4 ? 0 : gpu::kNoNeighbour, c.stepSouth = y > 0 ? 0 : gpu::kNoNeighbour;
    }
  return hm;
}

Rgb3 pixel(const RenderImage& image, uint32_t x, uint32_t y) {
  const uint8_t* p = &image.pixels[(size_t(y) * image.width + x) * 4];
  return {p[0], p[1], p[2]};
}

// The pixel of world point (x, y) in a top view.
Rgb3 pixelAtWorld(const RenderImage& image, double x, double y) {
  return pixel(image, uint32_t((x - image.plotLeft) / image.metresPerPixel), uint32_t((image.plotTop - y) / image.metresPerPixel));
}

// An upward face's colour under the rasterizer's light (raster.glsl: ambient 0.25 + diffuse
// 0.75 x the lambert term, rounded).
Rgb3 shadedUp(const Rgb3& c) {
  const RasterizerOptions raster;
  const float shade = 0.25f + 0.75f * glm::normalize(raster.lightDirection).z;
  Rgb3 out;
  for (int k = 0; k < 3; ++k) out[k] = uint8_t(float(c[k]) * shade + 0.5f);
  return out;
}

void checkNear(const Rgb3& got, const Rgb3& want) {
  INFO("got (" << int(got[0]) << ", " << int(got[1]) << ", " << int(got[2]) << "), want (" << int(want[0]) << ", "
               << int(want[1]) << ", " << int(want[2]) << ")");
  for (int k = 0; k < 3; ++k) CHECK(std::abs(int(got[k]) - int(want[k])) <= 1);
}

}  // namespace

TEST_CASE("renderHeightmap draws the cost colours: free cells on the cost ramp, lethal black", "[api][render][heightmap][gpu]") {
  Context ctx(vt::gpu().scheduler);
  const Heightmap hm = halfLethal();
  RenderOptions o{.width = 160, .height = 96};
  o.view = RenderView::Top;
  const HeightmapRenderImage out = renderHeightmap(ctx, hm, o);
  const RenderImage& image = out.image;
  REQUIRE(image.view == RenderView::Top);
  CHECK(out.cells == 32);
  CHECK(out.lethal == 16);
  CHECK(out.risers == 0);
  CHECK(out.joins == 4 * 7 + 3 * 8);
  CHECK(image.triangles == 64);
  CHECK(image.drawnTriangles == 64);
  CHECK(image.heightMin == 0.5);
  CHECK(image.heightMax == 0.5);
  // Cell (1, 1)'s centre: x 1 + 1.375, y 2 + 0.375 m; cell (6, 2)'s: x 2.625, y 2.625 m.
  checkNear(pixelAtWorld(image, 1.375, 2.375), shadedUp({68, 1, 84}));
  CHECK(pixelAtWorld(image, 2.625, 2.625) == Rgb3{0, 0, 0});
  CHECK(pixel(image, 0, 0) == Rgb3{222, 228, 236});  // the background, outside the framed grid

  // By height, everything is at 0.5 m: no black.
  const HeightmapRenderImage byHeight = renderHeightmap(ctx, hm, o, {.colouring = HeightmapColouring::Height});
  CHECK(pixelAtWorld(byHeight.image, 2.625, 2.625) != Rgb3{0, 0, 0});
}

TEST_CASE("renderHeightmap's legend: the cost ramp and the lethal swatch under the picture", "[api][render][heightmap][gpu]") {
  Context ctx(vt::gpu().scheduler);
  RenderOptions o{.width = 400, .height = 300};
  o.legend = true;
  const HeightmapRenderImage out = renderHeightmap(ctx, halfLethal(), o);
  const RenderImage& image = out.image;
  REQUIRE(image.plotHeight < image.height);
  // Text size 1 below 800 x 480: the bar 7 pixels in from the band's corner, 9 high.
  const uint32_t row = image.plotHeight + 7 + 4;
  CHECK(pixel(image, 7, row) == Rgb3{68, 1, 84});  // cost 0
  const uint32_t barWidth = std::min(200u, uint32_t(400 * 0.45));
  CHECK(pixel(image, 7 + barWidth - 1, row) == Rgb3{253, 231, 37});  // cost 100
  // The lethal swatch: 4 paddings right of the bar, black inside its frame.
  CHECK(pixel(image, 7 + barWidth + 24 + 4, row) == Rgb3{0, 0, 0});
  CHECK(image.scaleMetres > 0.0);

  CHECK_THROWS_AS(renderHeightmap(ctx, halfLethal(), o, {.level = 2}), SettingError);
}

// voxen::renderMap's views and legend (issue 35, item 12): the default perspective view frames
// the map to fill the picture; the top view is an orthographic plan whose pixels map linearly
// to world x and y (a voxel at a known place lands at the pixel RenderImage says); the legend
// band holds the painter's height colours and a scale bar of a round length.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/mapper.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/render_map.hpp"

namespace {

using namespace voxen;

uint32_t pixelAt(const RenderImage& image, uint32_t x, uint32_t y) {
  const uint8_t* p = &image.pixels[(size_t(y) * image.width + x) * 4];
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

const uint32_t kBackground = PainterOptions().backgroundColor;

// The rows and columns (inclusive) of the map's rows that are not background.
struct Covered {
  uint32_t minX = UINT32_MAX, minY = UINT32_MAX, maxX = 0, maxY = 0;
  uint32_t width() const { return maxX >= minX ? maxX - minX + 1 : 0; }
  uint32_t height() const { return maxY >= minY ? maxY - minY + 1 : 0; }
};
Covered covered(const RenderImage& image) {
  Covered c;
  for (uint32_t y = 0; y < image.plotHeight; ++y)
    for (uint32_t x = 0; x < image.width; ++x)
      if (pixelAt(image, x, y) != kBackground)
        c.minX = std::min(c.minX, x), c.maxX = std::max(c.maxX, x), c.minY = std::min(c.minY, y), c.maxY = std::max(c.maxY, y);
  return c;
}

// Four posts 1 m high at the corners of a 10 x 6 m rectangle and one voxel at (7.05, 2.05).
OccupancyMap postsAndMarker() {
  OccupancyMap map;  // 0.1 m voxels
  auto occupy = [&](const glm::dvec3& p) {
    const VoxelCoord v = map.voxelAt(p);
    map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = 2.0f;
  };
  for (const double x : {0.05, 10.05})
    for (const double y : {0.05, 6.05})
      for (int z = 0; z < 10; ++z) occupy({x, y, 0.05 + 0.1 * z});
  occupy({7.05, 2.05, 0.45});
  return map;
}

}  // namespace

TEST_CASE("The top view maps world x and y linearly to pixels", "[api][render][gpu]") {
  Context ctx(vt::gpu().scheduler);
  const OccupancyMap map = postsAndMarker();
  RenderOptions o{.width = 400, .height = 300};
  o.view = RenderView::Top;
  const RenderImage image = renderMap(ctx, map, o);
  REQUIRE(image.view == RenderView::Top);
  REQUIRE(image.plotHeight == 300);
  // The posts' x extent (0 to 10.1 m) is the tighter axis: 96 % of the width.
  CHECK(image.metresPerPixel == Approx(10.1 / (0.96 * 400)).epsilon(1e-4));
  CHECK(image.plotLeft + 200 * image.metresPerPixel == Approx(5.05).margin(1e-4));
  CHECK(image.plotTop - 150 * image.metresPerPixel == Approx(3.05).margin(1e-4));
  // The occupied bounds in map metres (they were in the render grid's frame).
  CHECK(image.occupiedMin.x == Approx(0.0).margin(1e-9));
  CHECK(image.occupiedMin.z == Approx(0.0).margin(1e-9));
  CHECK(image.occupiedMax.x == Approx(10.1));
  CHECK(image.occupiedMax.y == Approx(6.1));
  CHECK(image.occupiedMax.z == Approx(1.0));
  CHECK(image.heightMin == Approx(0.05));
  CHECK(image.heightMax == Approx(0.95));
  // The marker voxel's pixels are centred where the mapping puts (7.05, 2.05): within half a pixel.
  const double expectedX = (7.05 - image.plotLeft) / image.metresPerPixel - 0.5;
  const double expectedY = (image.plotTop - 2.05) / image.metresPerPixel - 0.5;
  double sumX = 0, sumY = 0, count = 0;
  for (int y = int(expectedY) - 10; y <= int(expectedY) + 10; ++y)
    for (int x = int(expectedX) - 10; x <= int(expectedX) + 10; ++x)
      if (pixelAt(image, uint32_t(x), uint32_t(y)) != kBackground) sumX += x, sumY += y, ++count;
  REQUIRE(count >= 4);
  CHECK(count < 60);  // one voxel, about 0.1 m across: a few pixels, not a smear
  CHECK(std::abs(sumX / count - expectedX) < 0.5);
  CHECK(std::abs(sumY / count - expectedY) < 0.5);
  // The posts at the corners: (0.05, 6.05) top left, (10.05, 0.05) bottom right.
  const Covered c = covered(image);
  CHECK(c.minX == uint32_t((0.0 - image.plotLeft) / image.metresPerPixel));
  CHECK(c.maxX == uint32_t((10.1 - image.plotLeft) / image.metresPerPixel));
  CHECK(c.minY == uint32_t((image.plotTop - 6.1) / image.metresPerPixel));
  CHECK(c.maxY == uint32_t((image.plotTop - 0.0) / image.metresPerPixel));
  vt::flushGpu();
}

TEST_CASE("The default views frame the map to fill the picture", "[api][render][gpu]") {
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.model.resolution = 0.2;
  Mapper mapper(ctx, options);
  mapper.integrate(vt::occupancy::smallLidarRun(2));
  for (const RenderView view : {RenderView::Perspective, RenderView::Top}) {
    INFO((view == RenderView::Top ? "top" : "perspective"));
    RenderOptions o{.width = 320, .height = 200};
    o.view = view;
    const RenderImage image = renderMap(ctx, mapper.map(), o);
    const Covered c = covered(image);
    INFO("covered x " << c.minX << ".." << c.maxX << ", y " << c.minY << ".." << c.maxY);
    // The map reaches across at least 85 % of the picture on one axis and is centred.
    CHECK((c.width() >= 0.85 * image.width || c.height() >= 0.85 * image.plotHeight));
    CHECK(std::abs(0.5 * (c.minX + c.maxX) - 0.5 * image.width) < 0.08 * image.width);
    CHECK(std::abs(0.5 * (c.minY + c.maxY) - 0.5 * image.plotHeight) < 0.08 * image.plotHeight);
    CHECK(image.metresPerPixel > 0.0);
  }
  vt::flushGpu();
}

TEST_CASE("The legend band holds the height colour bar and a round scale bar", "[api][render][gpu]") {
  Context ctx(vt::gpu().scheduler);
  const OccupancyMap map = postsAndMarker();
  for (const RenderView view : {RenderView::Top, RenderView::Perspective}) {
    INFO((view == RenderView::Top ? "top" : "perspective"));
    RenderOptions o{.width = 640, .height = 480};
    o.view = view;
    o.legend = true;
    const RenderImage image = renderMap(ctx, map, o);
    REQUIRE(image.plotHeight < image.height);
    REQUIRE(image.plotHeight >= image.height * 2 / 3);
    // Without the legend the same picture is framed in all 480 rows; with it, in the rows above.
    o.legend = false;
    CHECK(renderMap(ctx, map, o).plotHeight == 480);
    const uint32_t band = image.plotHeight;
    // Text size 1 below 800 x 480: the bar starts 7 pixels in, 9 pixels high, 200 wide.
    const uint32_t barRow = band + 7 + 4;
    CHECK(pixelAt(image, 7, barRow) == heightColor(0.0f));
    CHECK(pixelAt(image, 7 + 199, barRow) == heightColor(1.0f));
    CHECK(pixelAt(image, 7 + 100, barRow) == heightColor(float(100.0 / 199.0)));
    // The scale bar: a black run of round length ending 7 pixels from the right edge.
    const double m = image.scaleMetres, power = std::pow(10.0, std::floor(std::log10(m)));
    const double mantissa = m / power;
    CHECK((std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 || std::abs(mantissa - 5) < 1e-9));
    const int64_t length = std::llround(m / image.metresPerPixel);
    CHECK(length >= 40);
    CHECK(length <= 160);
    const uint32_t scaleRow = band + 7 + 4 - 1;
    int64_t black = 0;
    for (uint32_t x = 320; x < image.width; ++x) black += pixelAt(image, x, scaleRow) == 0xff000000u;
    CHECK(black == length);
    CHECK(pixelAt(image, image.width - 8, scaleRow) == 0xff000000u);
    CHECK(pixelAt(image, image.width - 8 - uint32_t(length), scaleRow) == 0xffffffffu);
  }
  vt::flushGpu();
}

TEST_CASE("Views and legends out of range are SettingErrors naming the field", "[api][render][gpu]") {
  Context ctx(vt::gpu().scheduler);
  const OccupancyMap map = postsAndMarker();
  auto field = [&](RenderOptions o) {
    try {
      renderMap(ctx, map, o);
    } catch (const SettingError& e) {
      return e.field();
    }
    return std::string("none");
  };
  RenderOptions topWithCamera;
  topWithCamera.view = RenderView::Top;
  topWithCamera.eye = glm::dvec3(0, 0, 10), topWithCamera.target = glm::dvec3(0.0);
  CHECK(field(topWithCamera) == "RenderOptions::view");
  RenderOptions tiny{.width = 160, .height = 100};
  tiny.legend = true;
  CHECK(field(tiny) == "RenderOptions::legend");
  CHECK_FALSE(renderLegendFits(160, 100));
  CHECK_FALSE(renderLegendFits(640, 120));
  CHECK(renderLegendFits(320, 200));
  vt::flushGpu();
}

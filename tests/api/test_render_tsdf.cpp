// voxen::renderTsdfMesh (voxen/render_tsdf.hpp): hand-made TSDF meshes drawn from the top
// through the painter's rasterizer. The picture shows the surface where its projection is
// (the covered pixels are the projected rectangle's, to a pixel at its edges), coloured by
// height (the painter's ramp, shaded for an upward face) or in the mesh's own colours; a face
// seen from behind is lit as from the front; a crop leaves out the faces outside it; options
// out of range are SettingErrors naming the field.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdlib>

#include <glm/glm.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/render_tsdf.hpp"

namespace {

using namespace voxen;
using Rgb3 = std::array<uint8_t, 3>;
const Rgb3 kBackground{222, 228, 236};

// Adds the rectangle [x0, x1] x [y0, y1] at height z as two faces, counter-clockwise from
// above, normals `up` (+z, or -z for a face turned away from a camera above it).
void addRectangle(TsdfMesh& mesh, double x0, double y0, double x1, double y1, double z, float up = 1.0f) {
  const uint32_t first = uint32_t(mesh.positions.size());
  for (const glm::dvec2& c : {glm::dvec2(x0, y0), glm::dvec2(x1, y0), glm::dvec2(x1, y1), glm::dvec2(x0, y1)}) {
    mesh.positions.push_back(glm::vec3(float(c.x), float(c.y), float(z)));
    mesh.normals.push_back(glm::vec3(0.0f, 0.0f, up));
  }
  mesh.faces.push_back({first, first + 1, first + 2});
  mesh.faces.push_back({first, first + 2, first + 3});
}

Rgb3 pixel(const RenderImage& image, uint32_t x, uint32_t y) {
  const uint8_t* p = &image.pixels[(size_t(y) * image.width + x) * 4];
  return {p[0], p[1], p[2]};
}

Rgb3 pixelAtWorld(const RenderImage& image, double x, double y) {
  return pixel(image, uint32_t((x - image.plotLeft) / image.metresPerPixel), uint32_t((image.plotTop - y) / image.metresPerPixel));
}

// An upward face's colour under the rasterizer's light (as test_render_heightmap.cpp has it).
Rgb3 shadedUp(uint32_t rgba) {
  const RasterizerOptions raster;
  const float shade = 0.25f + 0.75f * glm::normalize(raster.lightDirection).z;
  Rgb3 out;
  for (int k = 0; k < 3; ++k) out[k] = uint8_t(float(rgba >> (8 * k) & 0xff) * shade + 0.5f);
  return out;
}

void checkNear(const Rgb3& got, const Rgb3& want) {
  INFO("got (" << int(got[0]) << ", " << int(got[1]) << ", " << int(got[2]) << "), want (" << int(want[0]) << ", "
               << int(want[1]) << ", " << int(want[2]) << ")");
  for (int k = 0; k < 3; ++k) CHECK(std::abs(int(got[k]) - int(want[k])) <= 1);
}

RenderOptions topView(bool legend = false) {
  RenderOptions o{.width = 400, .height = 300};
  o.view = RenderView::Top;
  o.legend = legend;
  return o;
}

}  // namespace

TEST_CASE("renderTsdfMesh's top view covers the mesh's projection and nothing else", "[api][render][tsdf][gpu]") {
  Context ctx(vt::gpu().scheduler);
  TsdfMesh mesh;
  mesh.resolution = 0.05;
  addRectangle(mesh, 1.0, 2.0, 3.0, 3.0, 0.5);
  const TsdfRenderImage out = renderTsdfMesh(ctx, mesh, topView());
  const RenderImage& image = out.image;
  REQUIRE(image.view == RenderView::Top);
  CHECK(out.vertices == 4);
  CHECK(out.faces == 2);
  CHECK_FALSE(out.meshColours);
  CHECK(image.triangles == 2);
  CHECK(image.drawnTriangles == 2);
  CHECK(image.occupiedVoxels == 4);
  CHECK(image.occupiedMin == glm::dvec3(1.0, 2.0, 0.5));
  CHECK(image.occupiedMax == glm::dvec3(3.0, 3.0, 0.5));
  // Each pixel: covered exactly when its centre lies in the rectangle, give or take the
  // pixels along its edges (a centre within a pixel's width of the edge may go either way).
  const double m = image.metresPerPixel;
  REQUIRE(m > 0.0);
  uint64_t covered = 0, wrong = 0;
  for (uint32_t row = 0; row < image.plotHeight; ++row)
    for (uint32_t column = 0; column < image.width; ++column) {
      const double x = image.plotLeft + (column + 0.5) * m, y = image.plotTop - (row + 0.5) * m;
      const bool drawn = pixel(image, column, row) != kBackground;
      covered += drawn;
      const bool inside = x > 1.0 + m && x < 3.0 - m && y > 2.0 + m && y < 3.0 - m;
      const bool outside = x < 1.0 - m || x > 3.0 + m || y < 2.0 - m || y > 3.0 + m;
      wrong += (inside && !drawn) || (outside && drawn);
    }
  CHECK(wrong == 0);
  const double expected = 2.0 / (m * m);  // the rectangle's area in pixels
  CHECK(std::abs(double(covered) - expected) < 2.0 * (3.0 / m) + 4.0);  // its perimeter's pixels at most
  // Framed to fill: the rectangle's 2 m span most of the 400 pixels.
  CHECK(2.0 / m > 0.9 * 400);
  // One height: the middle of the ramp, shaded for an upward face.
  checkNear(pixelAtWorld(image, 2.0, 2.5), shadedUp(heightColor(0.5f)));
}

TEST_CASE("renderTsdfMesh colours by height, or in the mesh's own colours, lit from either side", "[api][render][tsdf][gpu]") {
  Context ctx(vt::gpu().scheduler);
  TsdfMesh mesh;
  addRectangle(mesh, 0.0, 0.0, 1.0, 1.0, 0.0);
  addRectangle(mesh, 2.0, 0.0, 3.0, 1.0, 2.0, -1.0f);  // its normals point down, away from the camera
  const TsdfRenderImage byHeight = renderTsdfMesh(ctx, mesh, topView());
  CHECK(byHeight.image.heightMin == 0.0);
  CHECK(byHeight.image.heightMax == 2.0);
  checkNear(pixelAtWorld(byHeight.image, 0.5, 0.5), shadedUp(heightColor(0.0f)));
  checkNear(pixelAtWorld(byHeight.image, 2.5, 0.5), shadedUp(heightColor(1.0f)));  // turned toward the camera

  mesh.colours.assign(mesh.positions.size(), glm::u8vec3(20, 200, 60));
  const TsdfRenderImage own = renderTsdfMesh(ctx, mesh, topView(true));
  CHECK(own.meshColours);
  checkNear(pixelAtWorld(own.image, 0.5, 0.5), shadedUp(0xff3cc814u));
  // Height colours on request, with the colours present.
  const TsdfRenderImage forced = renderTsdfMesh(ctx, mesh, topView(), {.colouring = TsdfColouring::Height});
  CHECK_FALSE(forced.meshColours);
  checkNear(pixelAtWorld(forced.image, 0.5, 0.5), shadedUp(heightColor(0.0f)));
}

TEST_CASE("renderTsdfMesh's crop and its refusals", "[api][render][tsdf][gpu]") {
  Context ctx(vt::gpu().scheduler);
  TsdfMesh mesh;
  addRectangle(mesh, 0.0, 0.0, 1.0, 1.0, 0.0);
  addRectangle(mesh, 2.0, 0.0, 3.0, 1.0, 2.0);
  RenderOptions o = topView();
  o.cropMin = glm::dvec3(-0.5, -0.5, -0.5), o.cropMax = glm::dvec3(1.5, 1.5, 0.5);
  const TsdfRenderImage cropped = renderTsdfMesh(ctx, mesh, o);
  CHECK(cropped.faces == 4);
  CHECK(cropped.image.triangles == 2);
  CHECK(cropped.image.occupiedMax == glm::dvec3(1.0, 1.0, 0.0));
  o.cropMin = glm::dvec3(10.0), o.cropMax = glm::dvec3(11.0);
  const TsdfRenderImage none = renderTsdfMesh(ctx, mesh, o);
  CHECK(none.image.triangles == 0);
  CHECK(none.image.drawnTriangles == 0);

  RenderOptions bad = topView();
  bad.width = 8;
  CHECK_THROWS_AS(renderTsdfMesh(ctx, mesh, bad), SettingError);
  bad = topView();
  bad.eye = glm::dvec3(0.0, 0.0, 5.0), bad.target = glm::dvec3(0.0);
  CHECK_THROWS_AS(renderTsdfMesh(ctx, mesh, bad), SettingError);  // the top view takes no camera
  bad = topView();
  bad.cropMin = glm::dvec3(1.0), bad.cropMax = glm::dvec3(0.0);
  CHECK_THROWS_AS(renderTsdfMesh(ctx, mesh, bad), SettingError);
}

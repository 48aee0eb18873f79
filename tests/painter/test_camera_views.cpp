// Views along the camera's up vector (a map seen straight from above or below): lookAt has
// no sideways axis there, so the camera picks another up. The painter's frame must then draw
// the scene exactly as the CPU rasterizer does, and the image must show it (not a blank
// picture of NaN vertices).
#include <catch2/catch.hpp>

#include <cmath>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/testdata/demo_scene.hpp"

using namespace voxen;

namespace {

bool finite(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

// Where a world point lands in the picture (pixels, top row 0).
glm::vec2 pixelOf(const Camera& camera, const glm::vec3& point, uint32_t width, uint32_t height) {
  const glm::vec4 clip = camera.viewProj(width, height) * glm::vec4(point, 1.0f);
  return {(clip.x / clip.w * 0.5f + 0.5f) * float(width), (clip.y / clip.w * 0.5f + 0.5f) * float(height)};
}

// The painter's frame from `camera` equals the CPU rasterizer's picture pixel for pixel, draws
// the same triangles (some), and the scene fills a good part of the picture.
void drawsAsReference(Painter& painter, const std::vector<gpu::Triangle>& mesh, const PainterOptions& options,
                      const Camera& camera) {
  painter.frame(camera);
  const FrameCounters counters = painter.readCounters();
  const RasterResult expected = rasterizeReference(mesh, viewConstants(options, camera));
  const std::vector<uint32_t> image = painter.readImage().get();
  REQUIRE(image.size() == expected.image.size());
  size_t differing = 0, covered = 0;
  for (size_t p = 0; p < image.size(); ++p) {
    differing += image[p] != expected.image[p];
    covered += image[p] != options.backgroundColor;
  }
  CHECK(differing == 0);
  CHECK(counters.drawnTriangles == expected.drawnTriangles);
  CHECK(counters.drawnTriangles > 0);
  CHECK(covered > image.size() / 10);
}

}  // namespace

TEST_CASE("A camera looking along its up vector keeps a finite view with y up in the picture", "[painter][camera]") {
  for (const float dz : {-1.0f, 1.0f}) {
    INFO((dz < 0 ? "straight down" : "straight up"));
    Camera camera;
    camera.eye = {15.0f, 0.0f, dz < 0 ? 40.0f : -40.0f};
    camera.target = {15.0f, 0.0f, 0.0f};
    REQUIRE(finite(camera.view()));
    CHECK(camera.viewUp() == glm::vec3(0.0f, 1.0f, 0.0f));
    // +y is above the target in the picture, seen from either side.
    const glm::vec2 centre = pixelOf(camera, camera.target, 200, 100);
    const glm::vec2 north = pixelOf(camera, camera.target + glm::vec3(0.0f, 5.0f, 0.0f), 200, 100);
    CHECK(std::abs(centre.x - 100.0f) < 1e-3f);
    CHECK(north.y < centre.y - 1.0f);
  }
  // Any other direction keeps the camera's own up.
  Camera tilted;
  tilted.eye = {15.0f, -1.0f, 40.0f};
  tilted.target = {15.0f, 0.0f, 0.0f};
  CHECK(tilted.viewUp() == tilted.up);
}

TEST_CASE("The painter draws a scene seen straight from above and from below as the CPU rasterizer does",
          "[painter][camera]") {
  const DensityGrid grid = demoScene(40);
  PainterOptions options;
  options.gridX = options.gridY = options.gridZ = 40;
  options.width = 160, options.height = 120;
  options.maxTriangles = 1u << 16;
  options.rasterMode = RasterMode::Shaded;
  Painter painter(vt::gpu().scheduler, options);
  painter.setGrid(grid.density, grid.color);
  const std::vector<gpu::Triangle> mesh = meshGrid(grid);
  REQUIRE(!mesh.empty());
  for (const float eyeZ : {80.0f, -40.0f}) {
    INFO("eye at z " << eyeZ);
    Camera camera;
    camera.eye = {20.0f, 20.0f, eyeZ};
    camera.target = {20.0f, 20.0f, 20.0f};
    camera.nearPlane = 1.0f;
    camera.farPlane = 400.0f;
    drawsAsReference(painter, mesh, options, camera);
  }
}

TEST_CASE("The painter draws an orthographic plan as the CPU rasterizer does, pixels linear in x and y",
          "[painter][camera]") {
  const DensityGrid grid = demoScene(40);
  PainterOptions options;
  options.gridX = options.gridY = options.gridZ = 40;
  options.width = 160, options.height = 120;
  options.maxTriangles = 1u << 16;
  Painter painter(vt::gpu().scheduler, options);
  painter.setGrid(grid.density, grid.color);
  const std::vector<gpu::Triangle> mesh = meshGrid(grid);
  Camera camera;
  camera.orthographic = true;
  camera.orthoHeight = 45.0f;
  camera.eye = {20.0f, 20.0f, 80.0f};
  camera.target = {20.0f, 20.0f, 20.0f};
  camera.nearPlane = 1.0f;
  camera.farPlane = 400.0f;
  // A world point lands at the pixel a linear map gives: 120 rows span 45 units, centred on the target.
  const float unitsPerPixel = 45.0f / 120.0f;
  const glm::vec2 corner = pixelOf(camera, {20.0f - 30.0f, 20.0f + 15.0f, 5.0f}, 160, 120);
  CHECK(corner.x == Approx(80.0f - 30.0f / unitsPerPixel).margin(1e-3));
  CHECK(corner.y == Approx(60.0f - 15.0f / unitsPerPixel).margin(1e-3));
  const Ray3 ray = camera.rayThroughPixel(10.0f, 20.0f, 160, 120);
  CHECK(ray.direction.z == Approx(-1.0f));
  CHECK(ray.origin.x == Approx(20.0f + (10.5f - 80.0f) * unitsPerPixel).margin(1e-3));
  drawsAsReference(painter, mesh, options, camera);
}

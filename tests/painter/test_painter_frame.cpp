// A whole painter frame (brush, incremental meshing, rasterization, resolve in one command
// buffer) against the CPU references chained the same way: after each stroke the GPU's
// mesh equals the CPU mesher's full re-mesh of the CPU-brushed grid, and the GPU's image
// equals the CPU rasterizer drawing that mesh, in triangle-id mode and shaded mode.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/cpu_brush.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/cpu_rasterizer.hpp"
#include "voxen/testdata/demo_scene.hpp"
#include "voxen/painter/painter.hpp"

using namespace voxen;
using gpu::Triangle;

namespace {

size_t differingTriangles(const std::vector<Triangle>& expected, const std::vector<Triangle>& got) {
  size_t differing = expected.size() > got.size() ? expected.size() - got.size() : got.size() - expected.size();
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i)
    differing += std::memcmp(&expected[i], &got[i], sizeof(Triangle)) != 0;
  return differing;
}

}  // namespace

TEST_CASE("A painter frame equals the CPU brush, mesher and rasterizer chained", "[painter][frame]") {
  for (RasterMode mode : {RasterMode::TriangleId, RasterMode::Shaded}) {
    INFO((mode == RasterMode::TriangleId ? "triangle-id mode" : "shaded mode"));
    DensityGrid grid = demoScene(40);
    PainterOptions options;
    options.gridX = options.gridY = options.gridZ = 40;
    options.width = 160, options.height = 120;
    options.maxTriangles = 1u << 16;
    options.largeTriangleArea = 2;  // many of this mesh's (small) triangles take the large path
    options.rasterMode = mode;
    Painter painter(vt::gpu().scheduler, options);
    painter.setGrid(grid.density, grid.color);
    Camera camera = cameraFraming(glm::vec3(0.0f), glm::vec3(39.0f), 50.0f, 160.0f / 120.0f);

    for (int k = 0; k < 4; ++k) {
      INFO("frame " << k);
      Stroke stroke;
      const Ray3 ray = camera.rayThroughPixel(70.0f + 9.0f * k, 55.0f + 4.0f * k, 160, 120);
      stroke.origin = ray.origin;
      stroke.direction = ray.direction;
      stroke.operation = k == 2 ? BrushMode::Erase : BrushMode::Add;
      stroke.radius = 3.5f;
      stroke.color = 0xff00ff00u - uint32_t(k);
      if (k > 0) applyStroke(grid, stroke);  // frame 0 draws the scene as it is
      painter.frame(camera, k > 0 ? &stroke : nullptr);

      const std::vector<Triangle> expectedMesh = meshGrid(grid);
      const FrameCounters counters = painter.readCounters();
      REQUIRE(counters.triangles == expectedMesh.size());
      CHECK(counters.overflowTriangles == 0);
      std::vector<Triangle> mesh = painter.readTriangles().get();
      mesh.resize(counters.triangles);
      CHECK(differingTriangles(expectedMesh, mesh) == 0);

      const RasterResult expected = rasterizeReference(expectedMesh, viewConstants(options, camera));
      const std::vector<uint32_t> image = painter.readImage().get();
      size_t differingPixels = 0, covered = 0;
      for (size_t p = 0; p < image.size(); ++p) {
        differingPixels += image[p] != expected.image[p];
        covered += expected.image[p] != (mode == RasterMode::TriangleId ? 0xFFFFFFFFu : options.backgroundColor);
      }
      CHECK(differingPixels == 0);
      CHECK(covered > image.size() / 10);  // the scene fills a good part of the picture
      CHECK(counters.drawnTriangles == expected.drawnTriangles);
      CHECK(counters.largeTiles == expected.largeTiles);
      CHECK(expected.largeTiles > 0);
      camera.orbit(0.3f, 0.05f);
    }
  }
}

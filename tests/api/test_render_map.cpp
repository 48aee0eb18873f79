// voxen::renderMap (engine/api): the picture of the painter wired by hand as `voxen render`
// wired it before the API, pixel for pixel; a triangle buffer too small for the mesh grows
// and the frame is drawn again, never dropping triangles; settings out of range named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/mapper.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/painter/view_framing.hpp"
#include "voxen/render_map.hpp"

namespace {

using namespace voxen;

// What tools/voxen/commands/render_command.cpp did before renderMap existed, with the default camera
// of now: the occupied samples in the bulk box framed from above and to the side.
std::vector<uint8_t> renderByHand(const OccupancyMap& map, uint32_t width, uint32_t height, float fov) {
  const MapGrid mapGrid = gridFromOccupancy(map, {});
  const DensityGrid& grid = mapGrid.grid;
  std::vector<glm::vec3> points;
  for (uint32_t z = 0; z < grid.nz; ++z)
    for (uint32_t y = 0; y < grid.ny; ++y)
      for (uint32_t x = 0; x < grid.nx; ++x) {
        const glm::vec3 p = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]) + glm::vec3(x, y, z) * grid.voxelSize;
        if (grid.density[grid.index(x, y, z)] > 0.0f && glm::all(glm::greaterThanEqual(p, glm::vec3(mapGrid.bulkMin))) &&
            glm::all(glm::lessThanEqual(p, glm::vec3(mapGrid.bulkMax))))
          points.push_back(p);
      }
  const Camera camera = framePoints(points, glm::vec3(mapGrid.occupiedMin), glm::vec3(mapGrid.occupiedMax),
                                    -glm::normalize(glm::vec3(-0.55f, -0.75f, 0.65f)), fov, float(width) / float(height));
  PainterOptions po;
  po.gridX = grid.nx, po.gridY = grid.ny, po.gridZ = grid.nz;
  po.gridOrigin = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]);
  po.voxelSize = grid.voxelSize;
  po.width = width, po.height = height;
  po.maxTriangles = uint32_t(std::min<uint64_t>(mapGrid.occupiedVoxels * 12 + 65536, 1ull << 25));
  po.largeTriangleArea = 256;
  Painter painter(vt::gpu().scheduler, po);
  painter.setGrid(grid.density, grid.color);
  painter.frame(camera);
  const std::vector<uint32_t> image = painter.readImage().get();
  REQUIRE(painter.readCounters().overflowTriangles == 0);
  std::vector<uint8_t> rgba(image.size() * 4);
  std::memcpy(rgba.data(), image.data(), rgba.size());
  return rgba;
}

}  // namespace

TEST_CASE("renderMap draws the picture of the painter wired by hand, and grows a buffer too small", "[api][render][gpu]") {
  Context ctx(vt::gpu().scheduler);
  MapperOptions options;
  options.model.resolution = 0.2;
  Mapper mapper(ctx, options);
  mapper.integrate(vt::occupancy::smallLidarRun(2));
  const std::vector<uint8_t> expected = renderByHand(mapper.map(), 320, 200, 50.0f);

  const RenderImage image = mapper.render({.width = 320, .height = 200});
  CHECK(image.width == 320);
  CHECK(image.height == 200);
  REQUIRE(image.pixels.size() == 320 * 200 * 4);
  CHECK(image.frames == 1);
  CHECK(image.triangles > 1000);
  CHECK(image.drawnTriangles > 0);
  CHECK(image.occupiedVoxels == mapper.stats().counts.occupied);
  CHECK(image.pixels == expected);
  // The picture is not the background alone.
  CHECK(std::count(image.pixels.begin(), image.pixels.end(), image.pixels[0]) < ptrdiff_t(image.pixels.size() / 2));

  SECTION("a first triangle buffer too small: the frame is drawn again with room for every triangle") {
    RenderOptions small{.width = 320, .height = 200};
    small.initialTriangleBudget = 64;
    const RenderImage grown = renderMap(ctx, mapper.map(), small);
    CHECK(grown.frames == 2);
    CHECK(grown.triangles == image.triangles);
    CHECK(grown.pixels == expected);
  }
  SECTION("settings out of range are SettingErrors naming the field") {
    auto field = [&](RenderOptions o) {
      try {
        renderMap(ctx, mapper.map(), o);
      } catch (const SettingError& e) {
        return e.field();
      }
      return std::string("none");
    };
    CHECK(field({.width = 8}) == "RenderOptions::width");
    CHECK(field({.fovDegrees = std::numeric_limits<float>::quiet_NaN()}) == "RenderOptions::fovDegrees");
    RenderOptions sameEye;
    sameEye.eye = sameEye.target = glm::dvec3(1.0);
    CHECK(field(sameEye) == "RenderOptions::eye");
    RenderOptions inverted;
    inverted.cropMin = glm::dvec3(1.0), inverted.cropMax = glm::dvec3(0.0);
    CHECK(field(inverted) == "MapGridOptions::crop");
  }
  vt::flushGpu();
}

// The brush phase against its CPU reference: after every stroke the GPU's grid (density and
// colour) equals the reference's bit for bit, for strokes at points and at ray hits, adds
// and erases, strokes that miss, and strokes that reach the grid's border.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "voxen/painter/cpu_brush.hpp"
#include "voxen/testdata/demo_scene.hpp"
#include "voxen/painter/painter.hpp"

using namespace voxen;

namespace {

PainterOptions smallPainter(const DensityGrid& grid) {
  PainterOptions o;
  o.gridX = grid.nx, o.gridY = grid.ny, o.gridZ = grid.nz;
  o.width = 64, o.height = 48;
  o.maxTriangles = 1u << 17;
  return o;
}

size_t differingSamples(const DensityGrid& expected, const std::vector<float>& density, const std::vector<uint32_t>& color) {
  size_t differing = 0;
  for (size_t i = 0; i < expected.density.size(); ++i)
    differing += expected.density[i] != density[i] || expected.color[i] != color[i];
  return differing;
}

}  // namespace

TEST_CASE("Brush strokes change the GPU grid exactly as the CPU reference", "[painter][brush]") {
  DensityGrid grid = demoScene(48);
  Painter painter(vt::gpu().scheduler, smallPainter(grid));
  painter.setGrid(grid.density, grid.color);
  Camera camera = cameraFraming(glm::vec3(0.0f), glm::vec3(47.0f));

  std::vector<Stroke> strokes;
  Stroke add;
  add.atRayHit = false;
  add.origin = {20.3f, 24.7f, 15.2f};
  add.radius = 4.6f;
  add.color = 0xff112233u;
  strokes.push_back(add);
  Stroke erase = add;
  erase.operation = BrushMode::Erase;
  erase.origin = {24.0f, 24.0f, 18.0f};
  erase.radius = 5.5f;
  strokes.push_back(erase);
  Stroke fromAbove;  // down onto the sphere and the ground
  fromAbove.origin = {23.4f, 25.1f, 46.0f};
  fromAbove.direction = {0.05f, -0.02f, -1.0f};
  fromAbove.radius = 3.2f;
  fromAbove.color = 0xff00ff00u;
  strokes.push_back(fromAbove);
  Stroke miss = fromAbove;  // upwards, away from everything
  miss.direction = {0.0f, 0.0f, 1.0f};
  strokes.push_back(miss);
  Stroke atBorder = add;  // reaches past the grid: the border layer stays empty
  atBorder.origin = {1.0f, 2.0f, 40.0f};
  atBorder.radius = 6.0f;
  strokes.push_back(atBorder);
  Stroke eraseAtHit = fromAbove;
  eraseAtHit.operation = BrushMode::Erase;
  eraseAtHit.radius = 2.4f;
  strokes.push_back(eraseAtHit);

  for (size_t k = 0; k < strokes.size(); ++k) {
    INFO("stroke " << k);
    const auto expectedCentre = strokeCentre(grid, strokes[k]);
    uint32_t expectedChanged = 0;
    applyStroke(grid, strokes[k], &expectedChanged);
    painter.frame(camera, &strokes[k]);
    const auto centre = painter.readStrokeCentre().get();
    INFO("GPU centre " << centre[0] << " " << centre[1] << " " << centre[2] << " " << centre[3]);
    REQUIRE((centre[3] == 1.0f) == expectedCentre.has_value());
    if (expectedCentre) CHECK(glm::vec3(centre[0], centre[1], centre[2]) == *expectedCentre);
    const auto density = painter.readDensity().get();
    const auto colors = painter.readColors().get();
    CHECK(differingSamples(grid, density, colors) == 0);
    CHECK(painter.readCounters().brushVoxels == expectedChanged);
    if (k == 3) CHECK(expectedChanged == 0);  // the miss
    else CHECK(expectedChanged > 0);
  }
  // The border layer is never written.
  for (uint32_t y = 0; y < grid.ny; ++y)
    for (uint32_t z = 0; z < grid.nz; ++z) CHECK(grid.at(0, y, z) == 0.0f);
}

// The brush phase against its CPU reference: after every stroke the GPU's grid (density and
// colour) equals the reference's bit for bit, for strokes at points and at ray hits, adds
// and erases, strokes that miss, strokes that reach the grid's border, strokes whose ramp
// lands exactly on its edges (density 0, 0.5 and 1, where the colour rule b > 0 flips), and
// on a grid whose origin and voxel size make the per-stroke set-up divide inexactly.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "voxen/painter/cpu_brush.hpp"
#include "voxen/testdata/demo_scene.hpp"
#include "voxen/painter/painter.hpp"

using namespace voxen;

namespace {

PainterOptions smallPainter(const DensityGrid& grid) {
  PainterOptions o;
  o.gridX = grid.nx, o.gridY = grid.ny, o.gridZ = grid.nz;
  o.gridOrigin = {grid.origin[0], grid.origin[1], grid.origin[2]};
  o.voxelSize = grid.voxelSize;
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

// Applies each stroke on the GPU and to `grid` with the CPU reference, and compares.
void checkStrokes(Scheduler& scheduler, DensityGrid& grid, const PainterOptions& options, const std::vector<Stroke>& strokes,
                  const std::set<size_t>& misses) {
  Painter painter(scheduler, options);
  painter.setGrid(grid.density, grid.color);
  const glm::vec3 origin(grid.origin[0], grid.origin[1], grid.origin[2]);
  Camera camera = cameraFraming(origin, origin + glm::vec3(float(grid.nx - 1) * grid.voxelSize));
  for (size_t k = 0; k < strokes.size(); ++k) {
    INFO("stroke " << k);
    const auto expected = strokeSetUp(grid, strokes[k]);
    uint32_t expectedChanged = 0;
    applyStroke(grid, strokes[k], &expectedChanged);
    painter.frame(camera, &strokes[k]);
    const auto centre = painter.readStrokeCentre().get();
    INFO("GPU centre " << centre[0] << " " << centre[1] << " " << centre[2] << " " << centre[3]);
    REQUIRE((centre[3] == 1.0f) == expected.has_value());
    if (expected) CHECK(glm::vec3(centre[0], centre[1], centre[2]) == expected->world);
    const auto density = painter.readDensity().get();
    const auto colors = painter.readColors().get();
    CHECK(differingSamples(grid, density, colors) == 0);
    CHECK(painter.readCounters().brushVoxels == expectedChanged);
    if (misses.count(k)) CHECK(expectedChanged == 0);
    else CHECK(expectedChanged > 0);
  }
  // The border layer is never written.
  for (uint32_t y = 0; y < grid.ny; ++y)
    for (uint32_t z = 0; z < grid.nz; ++z) CHECK(grid.at(0, y, z) == 0.0f);
}

// checkStrokes in both shader flavours: the shared device's (float64 where the device has
// it, as lavapipe does) and the plain one (a device without shaderFloat64, as
// VOXEN_NO_FLOAT64=1 makes), each from the same scene.
void checkStrokesInBothFlavours(const DensityGrid& scene, const std::vector<Stroke>& strokes, const std::set<size_t>& misses) {
  {
    INFO("shared device, float64 flavour: " << vt::gpu().library.float64());
    DensityGrid grid = scene;
    checkStrokes(vt::gpu().scheduler, grid, smallPainter(grid), strokes, misses);
  }
  vt::PlainFlavourGpu plain;
  ShaderLibrary& plainLibrary = plain.library;
  Scheduler& plainScheduler = plain.scheduler;
  REQUIRE_FALSE(plainLibrary.float64());
  INFO("plain flavour");
  DensityGrid grid = scene;
  checkStrokes(plainScheduler, grid, smallPainter(grid), strokes, misses);
  plainScheduler.finish();
}

}  // namespace

TEST_CASE("Brush strokes change the GPU grid exactly as the CPU reference", "[painter][brush]") {
  DensityGrid grid = demoScene(48);
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
  // On the ramp's edges, in empty air: centred on a sample with r = 4 voxels, the samples at
  // d^2 = 8, 16 and 24 get exactly 1, 0.5 and 0 (and 0 paints no colour: b > 0 decides).
  Stroke edges = add;
  edges.origin = {36.0f, 12.0f, 36.0f};
  edges.radius = 4.0f;
  const auto edgeSetUp = strokeSetUp(grid, edges);
  REQUIRE(edgeSetUp);
  CHECK(brushValue(*edgeSetUp, {38, 14, 36}) == 1.0f);
  CHECK(brushValue(*edgeSetUp, {40, 12, 36}) == 0.5f);
  CHECK(brushValue(*edgeSetUp, {40, 14, 38}) == 0.0f);
  CHECK(brushValue(*edgeSetUp, {40, 14, 37}) > 0.0f);
  strokes.push_back(edges);
  // Erasing there with r = 2: 1 at the centre (d^2 = 0), 0.5 at d^2 = 4, 0 at d^2 = 8,
  // where 1 - 0 leaves the grid as it was.
  Stroke edgesErase = edges;
  edgesErase.operation = BrushMode::Erase;
  edgesErase.radius = 2.0f;
  strokes.push_back(edgesErase);

  checkStrokesInBothFlavours(grid, strokes, {3});
}

TEST_CASE("Brush strokes on an offset grid of 0.37-unit voxels match the CPU reference", "[painter][brush]") {
  // The per-stroke set-up divides by the voxel size (the centre, the search's steps, the
  // radius in samples, 1 / (4 r)): here none of those divisions is exact.
  DensityGrid grid = demoScene(40);
  grid.voxelSize = 0.37f;
  grid.origin[0] = -2.3f, grid.origin[1] = 1.1f, grid.origin[2] = -0.7f;
  const auto world = [&grid](float x, float y, float z) {
    return glm::vec3(grid.origin[0] + x * grid.voxelSize, grid.origin[1] + y * grid.voxelSize, grid.origin[2] + z * grid.voxelSize);
  };
  std::vector<Stroke> strokes;
  Stroke add;
  add.atRayHit = false;
  add.origin = world(17.3f, 20.6f, 12.9f);
  add.radius = 3.7f * grid.voxelSize;
  add.color = 0xff112233u;
  strokes.push_back(add);
  Stroke fromAbove;
  fromAbove.origin = world(19.4f, 21.1f, 38.0f);
  fromAbove.direction = {0.03f, -0.04f, -1.0f};
  fromAbove.radius = 2.9f * grid.voxelSize;
  fromAbove.color = 0xff00ff00u;
  strokes.push_back(fromAbove);
  Stroke slanted;  // erases where a slanting ray meets the surface
  slanted.operation = BrushMode::Erase;
  slanted.origin = world(2.0f, 3.0f, 30.0f);
  slanted.direction = {0.5f, 0.6f, -0.4f};
  slanted.radius = 3.3f * grid.voxelSize;
  strokes.push_back(slanted);
  Stroke small = add;  // r under a voxel: the ramp never reaches 1
  small.origin = world(8.2f, 30.5f, 20.1f);
  small.radius = 0.6f * grid.voxelSize;
  strokes.push_back(small);
  checkStrokesInBothFlavours(grid, strokes, {});
}

// The heightmap's surface mesh (voxen/export/heightmap_mesh.hpp) on hand-made heightmaps,
// checked exactly: a square per drawn cell at its height, joins to the matched neighbour
// within the max step (a riser where the heights differ, none at step 0, none beyond the
// step), each pair joined once even when only one side's match points at the other, the
// cost and height colours, --level, and the PLY file's counts and bytes.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <glm/geometric.hpp>

#include "support/temp_dir.hpp"
#include "voxen/export/heightmap_mesh.hpp"
#include "voxen/host/setting_error.hpp"

namespace {

using namespace voxen;
using Rgb3 = std::array<uint8_t, 3>;

constexpr int32_t kNone = gpu::kNoNeighbour;
// heatColour (colour_bar.cpp, viridis) at 0, 1/2 and 1: the --cost-png ramp.
constexpr Rgb3 kHeat0{68, 1, 84}, kHeatHalf{33, 145, 140}, kHeat1{253, 231, 37};
constexpr Rgb3 kLethal{0, 0, 0};

void setCell(Heightmap& hm, uint32_t level, uint32_t x, uint32_t y, int32_t height, uint32_t cost,
             std::array<int32_t, 4> stepsENWS) {
  gpu::HeightmapCell& c = hm.cell(level, x, y);
  c.flags = gpu::kLevelPresent;
  c.height = height, c.cost = cost, c.room = 20;
  c.stepEast = stepsENWS[0], c.stepNorth = stepsENWS[1], c.stepWest = stepsENWS[2], c.stepSouth = stepsENWS[3];
}

// 3 x 2 columns at 0.1 m from voxel (10, -2), max step 0.2 m (2048 height units):
//   (0,0) z 0 cost 0 | (1,0) z 0.05 cost 50, and level 1 a bridge at 2 m, cost 100 | (2,0) z 1 m lethal
//   (0,1) z 0 cost 0 | (1,1), (2,1): no level
// Joins: (0,0)-(1,0) (step 0.05 m: a riser), (0,0)-(0,1) (step 0: none); (1,0)-(2,0) is a
// 0.95 m step and the bridge is 2 m above everything: open.
Heightmap terrace(double maxStep = 0.2) {
  HeightmapGrid grid;
  grid.gridX = 10, grid.gridY = -2, grid.width = 3, grid.height = 2, grid.zLow = -10, grid.zHigh = 40, grid.resolution = 0.1;
  grid.levels = 2;
  HeightmapOptions options;
  options.maxStep = maxStep;
  Heightmap hm(grid, options);
  setCell(hm, 0, 0, 0, 0, 0, {512, 0, kNone, kNone});
  setCell(hm, 0, 1, 0, 512, 50, {9728, kNone, -512, kNone});
  setCell(hm, 0, 2, 0, 10240, gpu::kCostLethal, {kNone, kNone, -9728, kNone});
  setCell(hm, 0, 0, 1, 0, 0, {kNone, kNone, kNone, 0});
  setCell(hm, 1, 1, 0, 20480, 100, {-10240, kNone, -20480, kNone});
  return hm;
}

void checkSquare(const HeightmapMesh& mesh, uint32_t square, const Heightmap& hm, uint32_t level, uint32_t x, uint32_t y,
                 const Rgb3& colour) {
  INFO("square " << square << ": level " << level << ", column " << x << ", row " << y);
  const double x0 = hm.columnMinX(x), x1 = hm.columnMinX(x + 1), y0 = hm.rowMinY(y), y1 = hm.rowMinY(y + 1);
  const double z = hm.heightMetres(level, x, y);
  const uint32_t v = square * 4;
  CHECK(mesh.positions[v] == glm::dvec3(x0, y0, z));
  CHECK(mesh.positions[v + 1] == glm::dvec3(x1, y0, z));
  CHECK(mesh.positions[v + 2] == glm::dvec3(x1, y1, z));
  CHECK(mesh.positions[v + 3] == glm::dvec3(x0, y1, z));
  for (uint32_t k = 0; k < 4; ++k) CHECK(mesh.colours[v + k] == colour);
  CHECK(mesh.triangles[2 * square] == std::array<uint32_t, 3>{v, v + 1, v + 2});
  CHECK(mesh.triangles[2 * square + 1] == std::array<uint32_t, 3>{v, v + 2, v + 3});
}

glm::dvec3 normalOf(const HeightmapMesh& mesh, const std::array<uint32_t, 3>& t) {
  return glm::cross(mesh.positions[t[1]] - mesh.positions[t[0]], mesh.positions[t[2]] - mesh.positions[t[0]]);
}

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("Heightmap mesh: a square per cell at its height, a riser where neighbours within the max step differ",
          "[export][heightmap][mesh]") {
  const Heightmap hm = terrace();
  const HeightmapMesh mesh = heightmapMesh(hm);
  // Level 0 row by row, then level 1: 5 squares; one riser.
  REQUIRE(mesh.cells == 5);
  CHECK(mesh.joins == 2);
  CHECK(mesh.risers == 1);
  CHECK(mesh.lethal == 1);
  CHECK(mesh.unknown == 0);
  REQUIRE(mesh.positions.size() == 5 * 4 + 4);
  REQUIRE(mesh.colours.size() == mesh.positions.size());
  REQUIRE(mesh.triangles.size() == 5 * 2 + 2);
  CHECK(mesh.heightMin == 0.0);
  CHECK(mesh.heightMax == 2.0);
  checkSquare(mesh, 0, hm, 0, 0, 0, kHeat0);
  checkSquare(mesh, 1, hm, 0, 1, 0, kHeatHalf);
  checkSquare(mesh, 2, hm, 0, 2, 0, kLethal);
  checkSquare(mesh, 3, hm, 0, 0, 1, kHeat0);
  checkSquare(mesh, 4, hm, 1, 1, 0, kHeat1);
  CHECK(mesh.positions[4].z == Approx(0.05));  // the sub-voxel height (512 / 1024 of a voxel)
  CHECK(mesh.positions[4].x == Approx(1.1));
  CHECK(mesh.positions[4].y == Approx(-0.2));

  // The riser on x = 1.1 between z 0 and 0.05, facing -x (the lower cell), its two lower
  // vertices the lower cell's colour and its upper ones the upper cell's; both triangles
  // start at an upper vertex.
  const double x = hm.columnMinX(1), ya = hm.rowMinY(0), yb = hm.rowMinY(1), z = hm.heightMetres(0, 1, 0);
  CHECK(mesh.positions[20] == glm::dvec3(x, yb, 0.0));
  CHECK(mesh.positions[21] == glm::dvec3(x, ya, 0.0));
  CHECK(mesh.positions[22] == glm::dvec3(x, ya, z));
  CHECK(mesh.positions[23] == glm::dvec3(x, yb, z));
  CHECK(mesh.colours[20] == kHeat0);
  CHECK(mesh.colours[21] == kHeat0);
  CHECK(mesh.colours[22] == kHeatHalf);
  CHECK(mesh.colours[23] == kHeatHalf);
  CHECK(mesh.triangles[10] == std::array<uint32_t, 3>{22, 20, 21});
  CHECK(mesh.triangles[11] == std::array<uint32_t, 3>{23, 20, 22});
  for (size_t t = 0; t < 10; ++t) CHECK(normalOf(mesh, mesh.triangles[t]).z > 0.0);
  for (size_t t = 10; t < 12; ++t) {
    const glm::dvec3 n = normalOf(mesh, mesh.triangles[t]);
    CHECK(n.x < 0.0);
    CHECK(n.y == 0.0);
    CHECK(n.z == 0.0);
  }
}

TEST_CASE("Heightmap mesh: a step beyond the heightmap's max step stays open", "[export][heightmap][mesh]") {
  const HeightmapMesh mesh = heightmapMesh(terrace(0.04));  // 409 height units: the 512 step is too large
  CHECK(mesh.cells == 5);
  CHECK(mesh.joins == 1);  // only the step-0 pair
  CHECK(mesh.risers == 0);
  CHECK(mesh.triangles.size() == 10);
}

TEST_CASE("Heightmap mesh: --level draws one level, coloured by cost or by height", "[export][heightmap][mesh]") {
  const Heightmap hm = terrace();
  const HeightmapMesh bridge = heightmapMesh(hm, {.level = 1});
  REQUIRE(bridge.cells == 1);
  CHECK(bridge.joins == 0);
  checkSquare(bridge, 0, hm, 1, 1, 0, kHeat1);
  const HeightmapMesh ground = heightmapMesh(hm, {.level = 0});
  CHECK(ground.cells == 4);
  CHECK(ground.risers == 1);

  // By height over the drawn cells' 0..2 m: 0 m low, 1 m (the lethal cell) half, 2 m high.
  const HeightmapMesh height = heightmapMesh(hm, {.colouring = HeightmapColouring::Height});
  REQUIRE(height.cells == 5);
  checkSquare(height, 0, hm, 0, 0, 0, kHeat0);
  checkSquare(height, 2, hm, 0, 2, 0, kHeatHalf);
  checkSquare(height, 4, hm, 1, 1, 0, kHeat1);

  CHECK_THROWS_AS(heightmapMesh(hm, {.level = 2}), SettingError);
  try {
    heightmapMesh(hm, {.level = 2});
  } catch (const SettingError& e) {
    CHECK(e.field() == "level");
  }
}

TEST_CASE("Heightmap mesh: each pair is joined once, also when only one side's match points at the other",
          "[export][heightmap][mesh]") {
  // Column 0: one level at 0. Column 1: levels at -0.1 m and 0.05 m. Column 0's nearest to the
  // east is the 0.05 m level; the -0.1 m level's nearest to the west is column 0 (a 0.1 m
  // step, within 0.2 m): two joins, two risers, none twice.
  HeightmapGrid grid;
  grid.width = 2, grid.height = 1, grid.zLow = -10, grid.zHigh = 40, grid.resolution = 0.1, grid.levels = 2;
  Heightmap hm(grid, HeightmapOptions{});
  setCell(hm, 0, 0, 0, 0, 0, {512, kNone, kNone, kNone});
  setCell(hm, 0, 1, 0, -1024, 0, {kNone, kNone, 1024, kNone});
  setCell(hm, 1, 1, 0, 512, 0, {kNone, kNone, -512, kNone});
  const HeightmapMesh mesh = heightmapMesh(hm);
  CHECK(mesh.cells == 3);
  CHECK(mesh.joins == 2);
  CHECK(mesh.risers == 2);
  CHECK(mesh.triangles.size() == 3 * 2 + 2 * 2);
}

TEST_CASE("Heightmap mesh PLY: a binary PLY with vertex colours and triangle faces", "[export][heightmap][mesh]") {
  vt::TempDir dir("heightmap-mesh");
  const HeightmapMesh mesh = heightmapMesh(terrace());
  const std::filesystem::path path = dir.path() / "terrace.ply";
  writeHeightmapMeshPly(mesh, path);
  const std::vector<uint8_t> bytes = fileBytes(path);
  const std::string text(bytes.begin(), bytes.end());
  const size_t end = text.find("end_header\n");
  REQUIRE(end != std::string::npos);
  const std::string header = text.substr(0, end);
  CHECK(header.rfind("ply\nformat binary_little_endian 1.0\n", 0) == 0);
  CHECK(header.find("element vertex 24\n") != std::string::npos);
  CHECK(header.find("property uchar red\nproperty uchar green\nproperty uchar blue\n") != std::string::npos);
  CHECK(header.find("element face 12\nproperty list uchar int vertex_indices\n") != std::string::npos);
  const size_t body = end + std::strlen("end_header\n");
  REQUIRE(bytes.size() == body + 24 * 15 + 12 * 13);
  // Vertex 1: (1.1, -0.2, 0) as floats, then cost 0's colour.
  float xyz[3];
  std::memcpy(xyz, &bytes[body + 15], 12);
  CHECK(xyz[0] == float(terrace().columnMinX(1)));
  CHECK(xyz[1] == float(-0.2));
  CHECK(xyz[2] == 0.0f);
  CHECK(Rgb3{bytes[body + 27], bytes[body + 28], bytes[body + 29]} == kHeat0);
  // Face 10: 3, then 22 20 21.
  const size_t face = body + 24 * 15 + 10 * 13;
  int32_t corners[3];
  std::memcpy(corners, &bytes[face + 1], 12);
  CHECK(bytes[face] == 3);
  CHECK(corners[0] == 22);
  CHECK(corners[1] == 20);
  CHECK(corners[2] == 21);
}

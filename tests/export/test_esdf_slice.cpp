// ESDF slices (voxen/export/esdf_slice.hpp) of a hand-built map: which columns are obstacles
// for a band (voxel centres, unknown as free or as obstacles), the distances against brute
// force, the GPU slice equal to the CPU's, the PGM's pixels and YAML fields, the arrays, and
// the bands that cannot make a slice refused naming the setting. The costmap's inflation on
// the GPU equals the CPU's byte for byte.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/export/esdf_slice.hpp"
#include "voxen/export/heightmap_export.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace {

using namespace voxen;

void set(OccupancyMap& map, int32_t x, int32_t y, int32_t z, float value) {
  const VoxelCoord v{x, y, z};
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
}

// 0.1 m voxels (the default model), x 0..39, y 0..29, z 0..19 observed free, except:
//   a post at x 10, y 10 from z 0 to 19 (every band);
//   a shelf at x 30..32, y 20 at z 12 only (centre 1.25 m);
//   x 20, y 5, z 5..7 unobserved (a hole in what was seen, centres 0.55..0.75 m).
OccupancyMap room() {
  OccupancyMap map;
  for (int32_t x = 0; x < 40; ++x)
    for (int32_t y = 0; y < 30; ++y)
      for (int32_t z = 0; z < 20; ++z) set(map, x, y, z, -1.0f);
  for (int32_t z = 0; z < 20; ++z) set(map, 10, 10, z, 2.0f);
  for (int32_t x = 30; x <= 32; ++x) set(map, x, 20, 12, 2.0f);
  for (int32_t z = 5; z <= 7; ++z) set(map, 20, 5, z, kUnobserved);
  return map;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

float bruteMetres(const EsdfSlice& s, uint32_t x, uint32_t y) {
  double best = INFINITY;
  for (uint32_t oy = 0; oy < s.height; ++oy)
    for (uint32_t ox = 0; ox < s.width; ++ox)
      if (s.obstacle[size_t(oy) * s.width + ox]) best = std::min(best, std::hypot(double(x) - ox, double(y) - oy) * s.resolution);
  return float(best);
}

}  // namespace

TEST_CASE("ESDF slice: obstacles in the band, distances, unknown as free or obstacle", "[esdfslice]") {
  const OccupancyMap map = room();
  SECTION("a band under the shelf: the post only") {
    const EsdfSlice s = esdfSlice(map, {.zMin = 0.5, .zMax = 1.0});
    REQUIRE(s.width == 40);
    REQUIRE(s.height == 30);
    CHECK(s.gridX == 0);
    CHECK(s.zFirst == 5);   // centre 0.55 m
    CHECK(s.zLast == 9);    // centre 0.95 m
    CHECK(s.obstacles == 1);
    CHECK(s.obstacle[10 * 40 + 10] == 1);
    CHECK(s.metres(10, 10) == 0.0f);
    CHECK(s.metres(13, 14) == Approx(0.5));
    for (uint32_t y = 0; y < s.height; y += 3)
      for (uint32_t x = 0; x < s.width; x += 3) REQUIRE(s.metres(x, y) == Approx(bruteMetres(s, x, y)));
  }
  SECTION("a band holding the shelf's centre (1.25 m), faces included") {
    const EsdfSlice s = esdfSlice(map, {.zMin = 1.25, .zMax = 1.25});
    CHECK(s.zFirst == 12);
    CHECK(s.zLast == 12);
    CHECK(s.obstacles == 4);
    CHECK(s.obstacle[20 * 40 + 31] == 1);
    CHECK(s.metres(31, 25) == Approx(0.5));
  }
  SECTION("unknown as obstacle: the hole's column joins") {
    const EsdfSlice s = esdfSlice(map, {.zMin = 0.5, .zMax = 1.0, .unknownAsObstacle = true});
    CHECK(s.obstacles == 2);
    CHECK(s.unknownObstacles == 1);
    CHECK(s.obstacle[5 * 40 + 20] == 1);
    CHECK(s.metres(20, 8) == Approx(0.3));
    // A band missing the hole's layers: it does not count.
    CHECK(esdfSlice(map, {.zMin = 1.0, .zMax = 1.1, .unknownAsObstacle = true}).obstacles == 1);
  }
  SECTION("a band above everything occupied but within the map: no obstacle, every cell kNoObstacle") {
    OccupancyMap open = room();
    for (int32_t z = 0; z < 20; ++z) set(open, 10, 10, z, -1.0f);
    const EsdfSlice s = esdfSlice(open, {.zMin = 0.2, .zMax = 0.4});
    CHECK(s.obstacles == 0);
    CHECK(std::isinf(s.metres(3, 3)));
    CHECK(esdfSlicePixels(s)[0] == 254);
  }
}

TEST_CASE("ESDF slice on the GPU equals the CPU reference", "[esdfslice][gpu]") {
  const OccupancyMap map = room();
  for (bool unknown : {false, true}) {
    const EsdfSlice cpu = esdfSlice(map, {.zMin = 0.0, .zMax = 1.3, .unknownAsObstacle = unknown});
    const EsdfSlice gpu = esdfSlice(map, {.zMin = 0.0, .zMax = 1.3, .unknownAsObstacle = unknown, .scheduler = &vt::gpu().scheduler});
    REQUIRE(cpu.obstacle == gpu.obstacle);
    REQUIRE(cpu.squared == gpu.squared);
  }
  vt::flushGpu();
}

TEST_CASE("ESDF slice files: the PGM's pixels, the YAML and the arrays", "[esdfslice]") {
  const OccupancyMap map = room();
  const vt::TempDir dir("esdf-slice");
  const EsdfSlice s = esdfSlice(map, {.zMin = 0.5, .zMax = 1.0, .maxDistance = 1.0});
  const std::vector<uint8_t> pixels = esdfSlicePixels(s);
  CHECK(pixels[10 * 40 + 10] == 0);
  CHECK(pixels[10 * 40 + 15] == 127);  // 0.5 m of 1 m
  CHECK(pixels[10 * 40 + 30] == 254);  // 2 m: past the top
  SECTION("OUT.yaml and OUT.pgm, from either name") {
    CHECK(esdfSliceFiles(dir.path() / "a.pgm").yaml == dir.path() / "a.yaml");
    CHECK(esdfSliceFiles(dir.path() / "a.yaml").image == dir.path() / "a.pgm");
    const EsdfSliceFiles files = exportEsdfSlicePgm(s, dir.path() / "slice.pgm");
    const std::string yaml = readFile(files.yaml);
    CHECK(yaml.find("image: slice.pgm\n") != std::string::npos);
    CHECK(yaml.find("mode: scale\n") != std::string::npos);
    CHECK(yaml.find("resolution: 0.1\n") != std::string::npos);
    CHECK(yaml.find("origin: [0, 0, 0.0]\n") != std::string::npos);
    CHECK(yaml.find("max_distance: 1\n") != std::string::npos);
    CHECK(yaml.find("z_min: 0.5\nz_max: 1\n") != std::string::npos);
    CHECK(yaml.find("unknown_as_obstacle: false\n") != std::string::npos);
    const std::string pgm = readFile(files.image);
    const std::string header = "P5\n# written by voxen\n40 30\n255\n";
    REQUIRE(pgm.size() == header.size() + 40 * 30);
    CHECK(pgm.compare(0, header.size(), header) == 0);
    // Row 0 of the image is the largest y: the post (y 10) on image row 19.
    CHECK(uint8_t(pgm[header.size() + 19 * 40 + 10]) == 0);
  }
  SECTION("the picture: framed, with its YAML") {
    const EsdfSlicePicture picture = exportEsdfSlicePng(s, dir.path() / "slice.png", "room", 2);
    CHECK(picture.scale == 2);
    CHECK(picture.yaml == dir.path() / "slice.yaml");
    CHECK(readFile(dir.path() / "slice.png").substr(1, 3) == "PNG");
    CHECK(readFile(picture.yaml).find("image: slice.png\n") != std::string::npos);
  }
  SECTION("the arrays: float32 metres, rows from the lowest y") {
    const std::vector<std::filesystem::path> files = writeEsdfSliceArrays(s, (dir.path() / "e").string());
    REQUIRE(files.size() == 3);
    const std::string npy = readFile(files[0]);
    REQUIRE(npy.size() > 10);
    const size_t data = 10 + uint8_t(npy[8]) + 256 * uint8_t(npy[9]);
    REQUIRE(data % 64 == 0);
    REQUIRE(npy.size() == data + 40 * 30 * 4);
    CHECK(npy.find("'descr': '<f4'") != std::string::npos);
    CHECK(npy.find("'shape': (30, 40)") != std::string::npos);
    float at;
    std::memcpy(&at, npy.data() + data + (10 * 40 + 13) * 4, 4);
    CHECK(at == Approx(0.3));
    CHECK(readFile(files[2]).find("\"obstacles\": 1") != std::string::npos);
  }
}

TEST_CASE("ESDF slice: bands that cannot make a slice are refused naming the setting", "[esdfslice]") {
  const OccupancyMap map = room();
  auto field = [&](const EsdfSliceOptions& o) {
    try {
      esdfSlice(map, o);
    } catch (const SettingError& e) {
      return e.field();
    }
    return std::string("(none)");
  };
  CHECK(field({.zMin = 1.0, .zMax = 0.5}) == "EsdfSliceOptions::zMin");
  CHECK(field({.zMin = 5.0, .zMax = 6.0}) == "EsdfSliceOptions::zMin");      // above the map
  CHECK(field({.zMin = -3.0, .zMax = -1.0}) == "EsdfSliceOptions::zMax");    // below it
  CHECK(field({.zMin = 0.51, .zMax = 0.54}) == "EsdfSliceOptions::zMax");    // no centre between
  CHECK(field({.zMin = 0.0, .zMax = 1.0, .maxDistance = 0.0}) == "EsdfSliceOptions::maxDistance");
  CHECK(field({.zMin = NAN, .zMax = 1.0}) == "EsdfSliceOptions::zMin");
  CHECK_THROWS_AS(esdfSlice(OccupancyMap(), {.zMin = 0.0, .zMax = 1.0}), Error);
}

TEST_CASE("Costmap inflation on the GPU equals the CPU's byte for byte", "[esdfslice][heightmapexport][gpu]") {
  // A floor at z 0 with a post and a wall up to z 19: their tops are steps too high, lethal.
  OccupancyMap map;
  for (int32_t x = 0; x < 40; ++x)
    for (int32_t y = 0; y < 30; ++y)
      for (int32_t z = 0; z < 20; ++z) {
        const bool solid = z == 0 || (x == 10 && y == 10) || (x == 25 && y < 15);
        set(map, x, y, z, solid ? 2.0f : -1.0f);
      }
  const Heightmap hm = computeHeightmap(map, {});
  for (double inflation : {0.0, 0.35, 1.0}) {
    CostmapOptions options{.inflationRadius = inflation, .inscribedRadius = inflation / 4};
    const std::vector<uint8_t> cpu = costmapValues(hm, options);
    CHECK(std::count(cpu.begin(), cpu.end(), kCostmapLethal) >= 16);
    if (inflation > 0.5) CHECK(std::count(cpu.begin(), cpu.end(), kCostmapInscribed) > 0);
    options.scheduler = &vt::gpu().scheduler;
    REQUIRE(costmapValues(hm, options) == cpu);
  }
  vt::flushGpu();
}

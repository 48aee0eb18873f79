// The clearance exports: the PLY's clearance property equals the layer voxel by voxel, the
// heat map colours obstacles black and distances by the scale, and maps without the layer
// are refused.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

#include "support/clearance_reference.hpp"
#include "support/temp_dir.hpp"
#include "voxen/io/clearance_export.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("Clearance PLY: every observed voxel with its clearance", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  setOccupied(map, {5, 5, 5});
  ClearanceOptions options;
  options.range = 1.0;
  options.unknownFree = true;
  computeClearanceCpu(map, options);
  vt::TempDir dir("clearance");
  REQUIRE(exportClearancePly(map, dir.path() / "c.ply") == 32768);
  const std::string bytes = readFile(dir.path() / "c.ply");
  const size_t body = bytes.find("end_header\n") + std::strlen("end_header\n");
  REQUIRE(bytes.size() == body + 32768 * 16);
  const auto layer = map.findRegion({0, 0, 0})->values<float>(clearanceLayer());
  uint64_t mismatches = 0;
  for (uint32_t i = 0; i < 32768; ++i) {
    float v[4];
    std::memcpy(v, bytes.data() + body + size_t(i) * 16, 16);
    const glm::dvec3 c = map.voxelCentre(map.voxelOf({0, 0, 0}, i));
    mismatches += v[0] != float(c.x) || v[1] != float(c.y) || v[2] != float(c.z) || v[3] != layer[i];
  }
  CHECK(mismatches == 0);
  float first[4];
  std::memcpy(first, bytes.data() + body + size_t(map.localIndex({5, 5, 5})) * 16, 16);
  CHECK(first[3] == 0.0f);
}

TEST_CASE("Clearance PNG: obstacles black, distances by the scale, a colour bar; no layer, no file", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  setOccupied(map, {5, 5, 5});
  ClearanceOptions options;
  options.range = 2.0;
  options.unknownFree = true;
  computeClearanceCpu(map, options);
  vt::TempDir dir("clearance");
  const SliceImage slice = exportClearancePng(map, dir.path() / "c.png", 5, 2, 2.0);
  CHECK(slice.width == 64);
  CHECK(slice.height == 64);
  CHECK(std::filesystem::file_size(dir.path() / "c.png") > 100);
  uint8_t rgb[3];
  clearanceColour(0.0, rgb);
  CHECK((rgb[0] > 200 && rgb[1] < 60));  // red near obstacles
  clearanceColour(1.0, rgb);
  CHECK((rgb[2] > 200 && rgb[0] < 60));  // blue at the scale's top
  const OccupancyMap plain = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  CHECK_THROWS_WITH(exportClearancePng(plain, dir.path() / "p.png", 5), Catch::Contains("no clearance layer"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "p.png"));
}

}  // namespace

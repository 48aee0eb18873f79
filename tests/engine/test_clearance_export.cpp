// The clearance exports: the PLY's clearance property equals the layer voxel by voxel, the
// heat map colours obstacles black and distances by the scale, and maps without the layer
// are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <fstream>
#include <sstream>

#include "support/clearance_reference.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/setting_error.hpp"
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
  // The remedy names the API's function, not a command line (the voxen tool words its own).
  try {
    exportClearancePng(plain, dir.path() / "p.png", 5);
    FAIL("a map without a clearance layer was exported");
  } catch (const voxen::SettingError& e) {
    CHECK(e.field() == "GpuClearance::compute");
    CHECK_THAT(e.what(), Catch::Contains("no clearance layer") && Catch::Contains("GpuClearance::compute") &&
                             !Catch::Contains("--"));
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "p.png"));
}

TEST_CASE("Clearance PNG: the scale spans the voxels drawn, and the bar has labelled ticks", "[clearance]") {
  // Only a patch around an obstacle is observed; the unobserved voxels around it (free with
  // --unknown-free) have larger clearances, but they are drawn grey.
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  Region& region = map.region({0, 0, 0});
  for (int z = 0; z < 32; ++z)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        if (x > 12 || y > 12) region.occupancy()[map.localIndex({x, y, z})] = kUnobserved;
  setOccupied(map, {3, 4, 5});
  ClearanceOptions options;
  options.range = 5.0;
  options.unknownFree = true;
  computeClearanceCpu(map, options);
  const auto clearance = region.values<float>(clearanceLayer());
  float drawn = 0.0f, everywhere = 0.0f;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const uint32_t i = map.localIndex({x, y, 5});
      everywhere = std::max(everywhere, clearance[i]);
      if (isObserved(region.occupancy()[i])) drawn = std::max(drawn, clearance[i]);
    }
  REQUIRE(drawn < everywhere - 1.0f);
  const ClearanceImage image = renderClearanceImage(map, 5, 2);
  CHECK(image.legend.top == Approx(drawn));
  // The farthest voxel drawn takes the scale's top colour: the picture is not one colour.
  uint8_t blue[3], red[3];
  clearanceColour(1.0, blue);
  clearanceColour(0.0, red);
  std::set<std::array<uint8_t, 3>> colours;
  for (uint32_t y = 0; y < image.slice.height; ++y)
    for (uint32_t x = 0; x < image.slice.width; ++x) {
      const uint8_t* p = &image.rgb[(size_t(y) * image.width + x) * 3];
      colours.insert({p[0], p[1], p[2]});
    }
  CHECK(colours.count({blue[0], blue[1], blue[2]}) == 1);
  CHECK(colours.size() > 10);
  // Ticks from 0 to the top, each with a mark beside the bar and a label.
  const ClearanceLegend& legend = image.legend;
  REQUIRE(legend.ticks.size() >= 4);
  CHECK(legend.ticks.front() == 0.0);
  CHECK(legend.ticks.back() == Approx(drawn));
  CHECK(std::is_sorted(legend.ticks.begin(), legend.ticks.end()));
  for (size_t k = 0; k < legend.ticks.size(); ++k) {
    const uint32_t row = legend.tickRows[k];
    uint32_t ink = 0;
    for (uint32_t y = row >= 4 ? row - 4 : 0; y <= row + 4 && y < image.height; ++y)
      for (uint32_t x = legend.labelX; x < image.width; ++x) ink += image.rgb[(size_t(y) * image.width + x) * 3] == 0;
    INFO("tick " << legend.ticks[k] << " m at row " << row);
    CHECK(ink >= 10);
    CHECK(image.rgb[(size_t(row) * image.width + legend.labelX - 4) * 3] == 0);  // its mark
  }
  // Round steps: 2.26 m gets 0, 0.5, ... 2 and the top.
  const ClearanceLegend round = clearanceLegend(2.26, 6, 125, 10);
  CHECK(round.ticks == std::vector<double>{0.0, 0.5, 1.0, 1.5, 2.0, 2.26});
  CHECK(clearanceLegend(5.0, 6, 125, 10).ticks == std::vector<double>{0.0, 1.0, 2.0, 3.0, 4.0, 5.0});
}

}  // namespace

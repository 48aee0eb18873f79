// The clearance exports: the PLY's clearance property equals the layer voxel by voxel, the
// heat map colours obstacles black and distances by the scale, and maps without the layer
// are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/clearance_reference.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/setting_error.hpp"
#include "support/png_reader.hpp"
#include "voxen/export/clearance_export.hpp"
#include "voxen/export/layer_export.hpp"

namespace {

using namespace voxen;
using namespace vt::clearance;

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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
  const ClearanceImage image = exportClearancePng(map, dir.path() / "c.png", 5, 2, 2.0);
  CHECK(image.slice.width == 64);
  CHECK(image.slice.height == 64);
  CHECK(image.top == 2.0);
  CHECK(std::filesystem::exists(dir.path() / "c.yaml"));
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
  CHECK(image.top == Approx(drawn));
  // The farthest voxel drawn takes the scale's top colour: the picture is not one colour.
  uint8_t blue[3], red[3];
  clearanceColour(1.0, blue);
  clearanceColour(0.0, red);
  std::set<std::array<uint8_t, 3>> colours;
  const SliceImage& slice = image.slice;
  for (uint32_t y = 0; y < slice.height; ++y)
    for (uint32_t x = 0; x < slice.width; ++x) {
      const uint8_t* p = &slice.rgb[(size_t(y) * slice.width + x) * 3];
      colours.insert({p[0], p[1], p[2]});
    }
  CHECK(colours.count({blue[0], blue[1], blue[2]}) == 1);
  CHECK(colours.size() > 10);
  // The picture: a colour bar from red to blue below the plot, with black tick labels.
  vt::TempDir dir("clearance");
  const ClearanceImage written = exportClearancePng(map, dir.path() / "c.png", 5, 2, 0.0, "patch.vxm");
  const vt::Png png = vt::decodePng(fileBytes(dir.path() / "c.png"));
  size_t barRed = 0, barBlue = 0, ink = 0;
  for (uint32_t y = written.slice.pictureTop + written.slice.height + 2; y < png.height; ++y)
    for (uint32_t x = 0; x < png.width; ++x) {
      const uint8_t* p = png.at(x, y);
      barRed += std::memcmp(p, red, 3) == 0, barBlue += std::memcmp(p, blue, 3) == 0, ink += p[0] + p[1] + p[2] == 0;
    }
  CHECK(barRed > 10);
  CHECK(barBlue > 10);
  CHECK(ink > 500);
}

TEST_CASE("--layer clearance --slice-png and --clearance-png draw one picture: one palette, unknown grey", "[clearance]") {
  OccupancyMap map = freeMap(0.25, {0, 0, 0}, {0, 0, 0});
  Region& region = map.region({0, 0, 0});
  for (int y = 10; y < 16; ++y)  // a strip of layer 5 unobserved
    for (int x = 0; x < 32; ++x) region.occupancy()[map.localIndex({x, y, 5})] = kUnobserved;
  setOccupied(map, {3, 4, 5});
  ClearanceOptions options;
  options.range = 3.0;
  options.unknownFree = true;
  computeClearanceCpu(map, options);
  vt::TempDir dir("clearance");
  const ClearanceImage heat = exportClearancePng(map, dir.path() / "heat.png", 5, 2);
  const LayerSlice layer = exportLayerSlicePng(map, clearanceLayer(), dir.path() / "layer.png", {.z = 5, .scale = 2});
  CHECK(layer.field == "distance");
  CHECK(layer.max == heat.top);
  CHECK(layer.slice.rgb == heat.slice.rgb);
  CHECK(fileBytes(dir.path() / "layer.png") == fileBytes(dir.path() / "heat.png"));
  const vt::Png png = vt::decodePng(fileBytes(dir.path() / "layer.png"));
  const uint8_t* unknown = png.at(layer.slice.pictureLeft + 1, layer.slice.pictureTop + uint32_t(layer.slice.maxY - 12) * 2);  // (0, 12)
  CHECK(std::memcmp(unknown, kSliceUnknownRgb, 3) == 0);
  const uint8_t* obstacle =
      png.at(layer.slice.pictureLeft + 3 * 2, layer.slice.pictureTop + uint32_t(layer.slice.maxY - 4) * 2);  // voxel (3, 4)
  CHECK((obstacle[0] == 0 && obstacle[1] == 0 && obstacle[2] == 0));
}

}  // namespace

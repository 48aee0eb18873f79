// Layer exports (voxen export --layer): every layer of a map, built-in, NDT, clearance or
// registered by a program, written as a PLY cloud with one property per declared field and
// drawn as a heat map with a legend; non-finite values left out and counted.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/export/layer_export.hpp"
#include "voxen/occupancy/ndt.hpp"

using namespace voxen;

namespace {

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A layer a program registers, with a signed and a 16-bit field.
LayerId exportTestLayer() {
  LayerType type;
  type.name = "test_export";
  type.bytesPerVoxel = 4;
  type.elementBytes = 2;
  type.description = "test-only: two 16-bit fields";
  LayerField level, tilt;
  level.name = "level";
  level.type = FieldType::U16;
  tilt.name = "tilt";
  tilt.type = FieldType::I16;
  tilt.unit = "deg";
  type.fields = {level, tilt};
  return registerLayer(type);
}

// Every layer there is, on a 4^3-voxel region grid at 0.5 m. Layer z = 1 holds voxels
// (0..2, 0, 1) observed with values rising along x, and voxel (3, 1, 1) unobserved but with
// a hit count (data in hit_miss only).
OccupancyMap everyLayerMap() {
  OccupancyModel model;
  model.resolution = 0.5;
  model.regionSize = 4;
  MapLayout layout = ndtLayout(NdtMode::Tm, MapLayout::of(kAllBuiltinLayers));
  layout.add(clearanceLayer()).add(exportTestLayer());
  OccupancyMap map(model, layout);
  Region& r = map.region({0, 0, 0});
  for (int x = 0; x < 3; ++x) {
    const size_t i = map.localIndex({x, 0, 1});
    r.occupancy()[i] = -1.0f + float(x);
    r.mean()[i] = {uint32_t(2 + x), {100, 200, uint32_t(300 * (x + 1))}};
    r.traversal()[i] = uint64_t(65536) * uint64_t(x + 1);
    r.hitMiss()[i] = {uint32_t(x), 7};
    r.touchTime()[i] = 1.7e9 + x;
    r.values<gpu::NdtCovariance>(ndtCovarianceLayer())[i] = {0.1f * float(x + 1), 0.01f, 0.2f, -0.02f, 0.0f, 0.3f};
    r.values<gpu::NdtIntensity>(ndtIntensityLayer())[i] = {10.0f * float(x), 4.0f};
    r.values<float>(clearanceLayer())[i] = x == 0 ? 0.0f : x == 1 ? 1.5f : kNoObstacleInRange;
    r.values<uint16_t>(exportTestLayer())[2 * i] = uint16_t(x + 1);
    r.values<int16_t>(exportTestLayer())[2 * i + 1] = int16_t(-5 * x);
  }
  r.hitMiss()[map.localIndex({3, 1, 1})].hits = 9;
  return map;
}

struct Ply {
  std::vector<std::string> lines;
  std::vector<uint8_t> body;
  size_t vertices = 0;
};

Ply readPly(const std::filesystem::path& path) {
  const std::vector<uint8_t> file = fileBytes(path);
  const std::string text(file.begin(), file.end());
  const size_t end = text.find("end_header\n");
  REQUIRE(end != std::string::npos);
  Ply ply;
  std::istringstream in(text.substr(0, end));
  for (std::string line; std::getline(in, line);) {
    ply.lines.push_back(line);
    if (line.rfind("element vertex ", 0) == 0) ply.vertices = std::stoul(line.substr(15));
  }
  ply.body.assign(file.begin() + ptrdiff_t(end + 11), file.end());
  REQUIRE(ply.lines.at(1) == "format binary_little_endian 1.0");
  return ply;
}

size_t plyTypeBytes(const std::string& type) {
  if (type == "uchar" || type == "char") return 1;
  if (type == "ushort" || type == "short") return 2;
  if (type == "uint" || type == "int" || type == "float") return 4;
  REQUIRE(type == "double");
  return 8;
}

bool isRgb(const uint8_t* p, uint8_t r, uint8_t g, uint8_t b) { return p[0] == r && p[1] == g && p[2] == b; }

}  // namespace

TEST_CASE("Every layer exports as PLY with one property per field, in the field's type and unit", "[layerexport]") {
  vt::TempDir dir("layerexport");
  const OccupancyMap map = everyLayerMap();
  REQUIRE(map.layout().ids().size() == 9);
  for (const LayerId id : map.layout().ids()) {
    const LayerType& type = layerType(id);
    INFO("layer " << type.name);
    const auto path = dir / (type.name + ".ply");
    const ExportCounts counts = exportLayerPly(map, id, path);
    // The three observed voxels, and for hit_miss the unobserved one with a count too.
    CHECK(counts.written == (id == kHitMissLayer ? 4u : 3u));
    CHECK(counts.nonFinite == 0);
    const Ply ply = readPly(path);
    CHECK(ply.vertices == counts.written);
    std::vector<std::string> properties;
    for (const std::string& line : ply.lines)
      if (line.rfind("property ", 0) == 0) properties.push_back(line);
    REQUIRE(properties.size() == 3 + type.fields.size());
    CHECK(properties[0] == "property float x");
    size_t stride = 12;
    for (size_t f = 0; f < type.fields.size(); ++f) {
      const std::string expected = std::string("property ") + plyTypeOf(type.fields[f]) + " " + type.fields[f].name;
      CHECK(properties[3 + f] == expected);
      stride += plyTypeBytes(plyTypeOf(type.fields[f]));
    }
    CHECK(ply.body.size() == ply.vertices * stride);
  }
  // Types and values: counts stay integers, lengths become metres as doubles.
  CHECK(std::string(plyTypeOf(layerType(kHitMissLayer).fields[0])) == "uint");
  CHECK(std::string(plyTypeOf(layerType(kTraversalLayer).fields[0])) == "double");
  CHECK(std::string(plyTypeOf(layerType(kTouchTimeLayer).fields[0])) == "double");
  CHECK(std::string(plyTypeOf(layerType(exportTestLayer()).fields[1])) == "short");
  const Ply traversal = readPly(dir / "traversal.ply");
  double length;
  std::memcpy(&length, traversal.body.data() + 12 + 20, 8);  // the second voxel: 2 voxels of 0.5 m
  CHECK(length == 1.0);
  float position[3];
  std::memcpy(position, traversal.body.data() + 20, 12);
  CHECK(position[0] == 0.75f);  // voxel (1, 0, 1)'s centre
  CHECK(position[2] == 0.75f);
  const Ply test = readPly(dir / "test_export.ply");
  int16_t tilt;
  std::memcpy(&tilt, test.body.data() + 2 * (12 + 4) + 12 + 2, 2);
  CHECK(tilt == -10);
  CHECK(std::find(test.lines.begin(), test.lines.end(), "comment tilt: deg") != test.lines.end());
}

TEST_CASE("Every layer draws as a heat map with a colour bar and a legend", "[layerexport][png]") {
  vt::TempDir dir("layerexport");
  const OccupancyMap map = everyLayerMap();
  for (const LayerId id : map.layout().ids()) {
    const LayerType& type = layerType(id);
    INFO("layer " << type.name);
    const auto path = dir / (type.name + ".png");
    const LayerSlice drawn = exportLayerSlicePng(map, id, path, {.z = 1, .scale = 4});
    CHECK(drawn.field == type.fields.front().name);
    CHECK(drawn.nonFinite == 0);
    CHECK(drawn.slice.minX == 0);
    CHECK(drawn.slice.maxX == (id == kHitMissLayer ? 3 : 2));
    const vt::Png png = vt::decodePng(fileBytes(path));
    CHECK(png.width >= 320);  // the colour bar's width at least
    REQUIRE(png.height > drawn.slice.height + 80);
    if (id == clearanceLayer()) continue;  // drawn as --clearance-png draws it: test_clearance_export
    // Black text and the ramp's two ends in the legend.
    size_t black = 0, low = 0, high = 0;
    for (uint32_t y = drawn.slice.pictureTop + drawn.slice.height + 1; y < png.height; ++y)
      for (uint32_t x = 0; x < png.width; ++x) {
        black += isRgb(png.at(x, y), 0, 0, 0);
        low += isRgb(png.at(x, y), 68, 1, 84);
        high += isRgb(png.at(x, y), 253, 231, 37);
      }
    CHECK(black > 300);
    CHECK(low > 0);
    CHECK(high > 0);
  }
  // Values rising along x: voxel 0 at the ramp's low end, voxel 2 at its high end.
  const LayerSlice hits = exportLayerSlicePng(map, kTraversalLayer, dir / "t.png", {.z = 1, .scale = 4});
  CHECK(hits.min == 0.5);
  CHECK(hits.max == 1.5);
  CHECK(hits.drawn == 3);
  const vt::Png png = vt::decodePng(fileBytes(dir / "t.png"));
  const uint32_t top = hits.slice.pictureTop + (hits.slice.maxY - 0) * 4, left = hits.slice.pictureLeft;  // voxel row y = 0
  CHECK(isRgb(png.at(left + 0, top), 68, 1, 84));
  CHECK(isRgb(png.at(left + 8, top), 253, 231, 37));
  // Another field by name; an unknown one names the layer's.
  const LayerSlice misses = exportLayerSlicePng(map, kHitMissLayer, dir / "m.png", {.z = 1, .field = "misses"});
  CHECK(misses.field == "misses");
  CHECK(misses.slice.scale == 32);  // the default: 4 voxels across, capped at 32 pixels each
  CHECK_THROWS_WITH(exportLayerSlicePng(map, kHitMissLayer, dir / "x.png", {.z = 1, .field = "nope"}),
                    Catch::Contains("layer 'hit_miss' has no field 'nope' (its fields: hits, misses)"));
  CHECK_THROWS_WITH(exportLayerSlicePng(map, kHitMissLayer, dir / "x.png", {.z = 9}), Catch::Contains("holds data"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.png"));
  CHECK_THROWS_WITH(requireMapLayer(map, "nothing"), Catch::Contains("no layer 'nothing'") && Catch::Contains("clearance"));
}

TEST_CASE("Layer exports stay finite: non-finite values are left out of the PLY and drawn apart, and counted",
          "[layerexport][png]") {
  vt::TempDir dir("layerexport");
  OccupancyMap map = everyLayerMap();
  Region& r = map.region({0, 0, 0});
  r.values<float>(clearanceLayer())[map.localIndex({1, 0, 1})] = std::nanf("");
  r.values<gpu::NdtIntensity>(ndtIntensityLayer())[map.localIndex({2, 0, 1})].variance = INFINITY;
  r.touchTime()[map.localIndex({0, 0, 1})] = -INFINITY;

  const ExportCounts clearance = exportLayerPly(map, clearanceLayer(), dir / "c.ply");
  CHECK(clearance.written == 2);
  CHECK(clearance.nonFinite == 1);
  CHECK(readPly(dir / "c.ply").vertices == 2);
  const ExportCounts intensity = exportLayerPly(map, ndtIntensityLayer(), dir / "i.ply");
  CHECK(intensity.written == 2);
  CHECK(intensity.nonFinite == 1);

  const LayerSlice drawn = exportLayerSlicePng(map, kTouchTimeLayer, dir / "t.png", {.z = 1, .scale = 2});
  CHECK(drawn.nonFinite == 1);
  CHECK(drawn.drawn == 2);
  CHECK(drawn.min == 1.7e9 + 1);
  CHECK(drawn.max == 1.7e9 + 2);
  const vt::Png png = vt::decodePng(fileBytes(dir / "t.png"));
  CHECK(isRgb(png.at(drawn.slice.pictureLeft, drawn.slice.pictureTop + uint32_t(drawn.slice.maxY) * 2), 255, 0, 255));  // voxel (0, 0, 1): magenta
}

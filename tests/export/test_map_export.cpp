// Map exports: the occupied-voxel PLY (header, count, coordinates, values) and the PNG slice,
// decoded here by a small independent PNG reader (chunk CRCs, zlib, all five row filters).
#include <catch2/catch.hpp>
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "support/gpu_fixture.hpp"  // vt::Rng
#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/export/octomap_io.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/host/error.hpp"

using namespace voxen;

namespace {

std::vector<uint8_t> readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using vt::decodePng;
using vt::Png;

bool isColour(const uint8_t* pixel, const uint8_t (&rgb)[3]) { return std::memcmp(pixel, rgb, 3) == 0; }

// ---- PLY parsing ------------------------------------------------------------------------

struct Ply {
  std::vector<std::string> headerLines;
  std::vector<uint8_t> body;
};

Ply splitPly(const std::vector<uint8_t>& file) {
  const std::string text(file.begin(), file.end());
  const size_t end = text.find("end_header\n");
  REQUIRE(end != std::string::npos);
  Ply ply;
  std::istringstream lines(text.substr(0, end));
  for (std::string line; std::getline(lines, line);) ply.headerLines.push_back(line);
  ply.body.assign(file.begin() + ptrdiff_t(end + 11), file.end());
  return ply;
}

bool hasLine(const Ply& ply, const std::string& line) {
  return std::find(ply.headerLines.begin(), ply.headerLines.end(), line) != ply.headerLines.end();
}

template <typename T>
T readLE(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // the test hosts are little-endian, as the file is
  return v;
}

// A map with known voxels across region boundaries and negative coordinates.
struct Fixture {
  OccupancyMap map{[] {
                     OccupancyModel m;
                     m.resolution = 0.25;
                     m.regionSize = 4;
                     return m;
                   }(),
                   LayerSet{kHitMissLayer}};
  std::map<std::tuple<int, int, int>, float> occupied;  // voxel -> value
  void set(VoxelCoord v, float value) {
    map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = value;
    if (map.classify(value) == VoxelClass::Occupied) occupied[{v.x, v.y, v.z}] = value;
  }
};

}  // namespace

TEST_CASE("Occupied voxels export as binary PLY with optional value", "[mapexport]") {
  vt::TempDir dir("mapexport");
  Fixture f;
  f.set({0, 0, 0}, 2.0f);
  f.set({-1, 3, 5}, 3.5f);
  f.set({9, -9, 1}, 0.0f);      // exactly at the threshold (log-odds 0): occupied
  f.set({2, 2, 2}, -0.5f);      // free
  f.set({-5, -5, -5}, -2.0f);   // free
  f.set({7, 7, -7}, 1.25f);
  REQUIRE(f.occupied.size() == 4);

  SECTION("float coordinates with value") {
    const uint64_t points = exportOccupiedPly(f.map, dir / "out.ply", {.withValue = true});
    CHECK(points == 4);
    const Ply ply = splitPly(readBytes(dir / "out.ply"));
    CHECK(ply.headerLines.front() == "ply");
    CHECK(hasLine(ply, "format binary_little_endian 1.0"));
    CHECK(hasLine(ply, "element vertex 4"));
    std::vector<std::string> properties;
    for (const auto& line : ply.headerLines)
      if (line.rfind("property ", 0) == 0) properties.push_back(line);
    CHECK(properties == std::vector<std::string>{"property float x", "property float y", "property float z", "property float value"});
    REQUIRE(ply.body.size() == 4 * 16);
    std::map<std::tuple<int, int, int>, float> found;
    for (size_t i = 0; i < 4; ++i) {
      const uint8_t* p = &ply.body[i * 16];
      const float x = readLE<float>(p), y = readLE<float>(p + 4), z = readLE<float>(p + 8);
      // Centres sit half a voxel inside: (v + 0.5) * 0.25.
      const int vx = int(std::floor(x / 0.25f)), vy = int(std::floor(y / 0.25f)), vz = int(std::floor(z / 0.25f));
      CHECK(x == float((vx + 0.5) * 0.25));
      CHECK(y == float((vy + 0.5) * 0.25));
      CHECK(z == float((vz + 0.5) * 0.25));
      found[{vx, vy, vz}] = readLE<float>(p + 12);
    }
    CHECK(found == f.occupied);
  }
  SECTION("double coordinates without value, in region key order") {
    CHECK(exportOccupiedPly(f.map, dir / "out.ply", {.doublePrecision = true}) == 4);
    const Ply ply = splitPly(readBytes(dir / "out.ply"));
    CHECK(hasLine(ply, "property double x"));
    CHECK_FALSE(hasLine(ply, "property float value"));
    REQUIRE(ply.body.size() == 4 * 24);
    // Regions ascending by (x, y, z): (-1,0,1) holds (-1,3,5); (0,0,0) holds (0,0,0);
    // (1,1,-2) holds (7,7,-7); (2,-3,0) holds (9,-9,1).
    const double expected[4][3] = {{-0.125, 0.875, 1.375}, {0.125, 0.125, 0.125}, {1.875, 1.875, -1.625}, {2.375, -2.125, 0.375}};
    for (size_t i = 0; i < 4; ++i)
      for (int a = 0; a < 3; ++a) CHECK(readLE<double>(&ply.body[i * 24 + a * 8]) == expected[i][a]);
  }
  SECTION("a map with nothing occupied gives an empty vertex list") {
    OccupancyMap empty;
    empty.region({0, 0, 0}).occupancy()[0] = -1.0f;
    CHECK(exportOccupiedPly(empty, dir / "empty.ply") == 0);
    const Ply ply = splitPly(readBytes(dir / "empty.ply"));
    CHECK(hasLine(ply, "element vertex 0"));
    CHECK(ply.body.empty());
  }
}

TEST_CASE("PNG slices show free, occupied and unknown voxels over the observed bounds", "[mapexport][png]") {
  vt::TempDir dir("mapexport");
  Fixture f;
  // Layer z = -3 (region z -1, local 1): observed voxels from x -3..4, y -2..6.
  const int32_t z = -3;
  f.set({-3, 0, z}, -1.0f);  // free, the leftmost column
  f.set({4, 6, z}, 3.0f);    // occupied, top-right corner
  f.set({0, -2, z}, 1.0f);   // occupied, the bottom row
  f.set({1, 1, z}, -0.2f);   // free
  f.set({2, 3, z + 4}, -1.0f);  // another layer, inside the same x and y bounds

  // The slice sits inside the axes at (pictureLeft, pictureTop); the legend lies below it.
  auto countColours = [](const Png& png, const SliceImage& slice) {
    std::array<size_t, 3> counts{};
    for (uint32_t y = 0; y < slice.height; ++y)
      for (uint32_t x = 0; x < slice.width; ++x) {
        const uint8_t* p = png.at(slice.pictureLeft + x, slice.pictureTop + y);
        counts[0] += isColour(p, kSliceUnknownRgb), counts[1] += isColour(p, kSliceFreeRgb), counts[2] += isColour(p, kSliceOccupiedRgb);
      }
    return counts;
  };
  // Black legend text and a red occupied swatch below row `top`.
  auto legendBelow = [](const Png& png, uint32_t top) {
    size_t black = 0, red = 0;
    for (uint32_t y = top; y < png.height; ++y)
      for (uint32_t x = 0; x < png.width; ++x) {
        const uint8_t* p = png.at(x, y);
        black += p[0] == 0 && p[1] == 0 && p[2] == 0;
        red += isColour(p, kSliceOccupiedRgb);
      }
    return black > 200 && red > 100;
  };
  SECTION("one pixel per voxel, y up, a legend below") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z, 1);
    CHECK(slice.minX == -3);
    CHECK(slice.maxX == 4);
    CHECK(slice.minY == -2);
    CHECK(slice.maxY == 6);
    CHECK(slice.occupied == 2);
    CHECK(slice.free == 2);
    CHECK(slice.width == 8);
    CHECK(slice.height == 9);
    const Png png = decodePng(readBytes(dir / "slice.png"));
    REQUIRE(png.width >= 300);  // the legend's text is wider than the slice
    REQUIRE(png.height > 9 + 60);
    REQUIRE(png.channels == 3);
    CHECK(png.width == slice.pictureWidth);
    CHECK(png.height == slice.pictureHeight);
    auto pixel = [&](int x, int y) { return png.at(slice.pictureLeft + uint32_t(x - slice.minX), slice.pictureTop + uint32_t(slice.maxY - y)); };
    auto plot = [&](uint32_t x, uint32_t y) { return png.at(slice.pictureLeft + x, slice.pictureTop + y); };
    CHECK(isColour(pixel(-3, 0), kSliceFreeRgb));
    CHECK(isColour(pixel(4, 6), kSliceOccupiedRgb));
    CHECK(isColour(plot(7, 0), kSliceOccupiedRgb));  // top-right
    CHECK(isColour(pixel(0, -2), kSliceOccupiedRgb));
    CHECK(isColour(plot(3, 8), kSliceOccupiedRgb));  // bottom row
    CHECK(isColour(pixel(1, 1), kSliceFreeRgb));
    CHECK(isColour(pixel(0, 0), kSliceUnknownRgb));
    CHECK(isColour(plot(0, 0), kSliceUnknownRgb));
    const auto counts = countColours(png, slice);
    CHECK(counts[0] == 8 * 9 - 4);
    CHECK(counts[1] == 2);
    CHECK(counts[2] == 2);
    CHECK(legendBelow(png, slice.pictureTop + 9));
  }
  SECTION("scaled") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z, 3);
    const Png png = decodePng(readBytes(dir / "slice.png"));
    CHECK(slice.width == 24);
    CHECK(slice.height == 27);
    CHECK(slice.scale == 3);
    REQUIRE(png.height > 27);
    auto plot = [&](uint32_t x, uint32_t y) { return png.at(slice.pictureLeft + x, slice.pictureTop + y); };
    for (uint32_t dy = 0; dy < 3; ++dy)
      for (uint32_t dx = 0; dx < 3; ++dx) {
        CHECK(isColour(plot(21 + dx, dy), kSliceOccupiedRgb));  // voxel (4, 6)
        CHECK(isColour(plot(dx, 18 + dy), kSliceFreeRgb));      // voxel (-3, 0): row (6 - 0) * 3
      }
    CHECK(isColour(plot(20, 2), kSliceUnknownRgb));
    CHECK(isColour(plot(21, 3), kSliceUnknownRgb));
  }
  SECTION("by default a small slice is scaled up, within the caps") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z);
    CHECK(slice.scale == 32);  // 9 voxels on the longer side: 800 pixels would take 89 per voxel
    const Png png = decodePng(readBytes(dir / "slice.png"));
    CHECK(slice.width == 256);
    CHECK(png.width >= 256);
    CHECK(png.height > 9 * 32);
    const auto counts = countColours(png, slice);
    CHECK(counts[2] == 2 * 32 * 32);
    CHECK(autoSliceScale(1000, 10) == 1);
    CHECK(autoSliceScale(100, 100) == 8);
    CHECK(autoSliceScale(300, 3000) == 1);
    CHECK(autoSliceScale(400, 300) == 2);
    CHECK(autoSliceScale(10, 400) == 2);  // the longer side sets the scale: 800 pixels high, not 4000
    CHECK(autoSliceScale(378, 20) == 3);  // 1134 pixels across, not 378
  }
  SECTION("a layer with nothing observed names the layers that have something") {
    CHECK_THROWS_WITH(renderSlice(f.map, 40), Catch::Contains("no observed voxel in layer z=40") && Catch::Contains("layers -3..1"));
    CHECK_THROWS_WITH(exportSlicePng(f.map, dir / "none.png", 40), Catch::Contains("none.png"));
    CHECK_FALSE(std::filesystem::exists(dir / "none.png"));
    CHECK_THROWS_WITH(renderSlice(f.map, z, 2000), Catch::Contains("scale 2000"));
  }
  SECTION("height in metres picks the layer") {
    CHECK(sliceLayerAt(f.map, -0.70) == -3);  // -0.75 .. -0.5 m
    CHECK(sliceLayerAt(f.map, -0.75) == -3);
    CHECK(sliceLayerAt(f.map, 0.0) == 0);
  }
}

namespace {

// The YAML's "key: value" lines (comments left out).
std::map<std::string, std::string> yamlFields(const std::filesystem::path& path) {
  std::map<std::string, std::string> fields;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return fields;
}

// Black pixels in a rectangle of the picture.
size_t inkIn(const Png& png, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  size_t ink = 0;
  for (uint32_t y = y0; y < std::min(y1, png.height); ++y)
    for (uint32_t x = x0; x < std::min(x1, png.width); ++x) ink += png.at(x, y)[0] == 0 && png.at(x, y)[1] == 0 && png.at(x, y)[2] == 0;
  return ink;
}

}  // namespace

TEST_CASE("Slice pictures cover the map's extent at every height, with metre axes, a title and a map_server YAML",
          "[mapexport][png]") {
  vt::TempDir dir("mapexport");
  Fixture f;  // 0.25 m voxels
  // Layer 1 sees x 0..3, y 0..1; layer 2 sees x -8..-6, y 10..11: the map spans x -8..3, y 0..11.
  for (int x = 0; x <= 3; ++x) f.set({x, 0, 1}, -1.0f), f.set({x, 1, 1}, 3.0f);
  for (int x = -8; x <= -6; ++x) f.set({x, 10, 2}, -1.0f), f.set({x, 11, 2}, -1.0f);
  const SliceImage low = exportSlicePng(f.map, dir / "low.png", 1, 4, "fixture.vxm");
  const SliceImage high = exportSlicePng(f.map, dir / "high.png", 2, 4, "fixture.vxm");
  // The same ground at both heights: the extent is the map's, not the layer's.
  for (const SliceImage* s : {&low, &high}) {
    CHECK(s->minX == -8);
    CHECK(s->maxX == 3);
    CHECK(s->minY == 0);
    CHECK(s->maxY == 11);
    CHECK(s->width == 12 * 4);
    CHECK(s->height == 12 * 4);
  }
  CHECK(low.pictureWidth == high.pictureWidth);
  CHECK(low.pictureHeight == high.pictureHeight);
  CHECK(low.pictureLeft == high.pictureLeft);
  CHECK(low.pictureTop == high.pictureTop);

  // The YAML beside each picture, in map_server's form, places the plot on the map: its
  // lower-left corner at (-8 x 0.25, 0) m, one pixel 0.25 / 4 m.
  REQUIRE(low.yaml == dir / "low.yaml");
  const auto yaml = yamlFields(low.yaml);
  CHECK(yaml.at("image") == "low.png");
  const double mpp = std::stod(yaml.at("resolution"));
  CHECK(mpp == 0.0625);
  CHECK(yaml.at("negate") == "0");
  CHECK(yaml.at("occupied_thresh") == "0.65");
  CHECK(yaml.at("free_thresh") == "0.196");
  double ox = 0, oy = 0, yaw = 1;
  REQUIRE(std::sscanf(yaml.at("origin").c_str(), "[%lf, %lf, %lf]", &ox, &oy, &yaw) == 3);
  CHECK(yaw == 0.0);
  // map_server: column c covers x from ox + c * mpp; row r (from the top) y from oy + (H - 1 - r) * mpp.
  CHECK(ox + low.pictureLeft * mpp == Approx(-8 * 0.25).margin(1e-9));
  const uint32_t plotBottomRow = low.pictureTop + low.height - 1;
  CHECK(oy + (low.pictureHeight - 1 - plotBottomRow) * mpp == Approx(0.0).margin(1e-9));
  CHECK(yamlFields(high.yaml).at("origin") == yaml.at("origin"));

  const Png png = decodePng(readBytes(dir / "low.png"));
  REQUIRE(png.width == low.pictureWidth);
  // The voxel (0, 1, 1) is occupied: at the pixel the YAML puts at x 0.03, y 0.28 m.
  const uint32_t column = uint32_t(std::floor((0.03 - ox) / mpp)), row = uint32_t(png.height - 1 - std::floor((0.28 - oy) / mpp));
  CHECK(isColour(png.at(column, row), kSliceOccupiedRgb));
  // map_server reads the classes right (trinary: occupancy = 1 - mean / 255).
  auto occupancy = [](const uint8_t (&rgb)[3]) { return 1.0 - (rgb[0] + rgb[1] + rgb[2]) / 3.0 / 255.0; };
  CHECK(occupancy(kSliceOccupiedRgb) > 0.65);
  CHECK(occupancy(kSliceFreeRgb) < 0.196);
  CHECK((occupancy(kSliceUnknownRgb) > 0.196 && occupancy(kSliceUnknownRgb) < 0.65));
  // A frame around the plot, tick labels left of it and below it, a title above it.
  CHECK(inkIn(png, low.pictureLeft - 1, low.pictureTop - 1, low.pictureLeft + low.width + 1, low.pictureTop) == low.width + 2);
  CHECK(inkIn(png, 0, low.pictureTop, low.pictureLeft - 8, low.pictureTop + low.height) > 20);   // y labels
  CHECK(inkIn(png, low.pictureLeft, low.pictureTop + low.height + 8, png.width, low.pictureTop + low.height + 30) > 40);  // x labels
  CHECK(inkIn(png, 0, 0, png.width, low.pictureTop - 24) > 200);  // the title
}

TEST_CASE("Axis ticks are 1, 2 or 5 x 10^n metres apart and their labels never touch", "[mapexport][png]") {
  using detail::axisTicks;
  auto width = [](const std::string& label) { return detail::Canvas::textWidth(label, 2); };
  const auto ticks = axisTicks(-2.0, 1.0, 200, width, 24);
  REQUIRE(ticks.values.size() >= 2);
  const double step = ticks.step;
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
  CHECK((std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 || std::abs(mantissa - 5) < 1e-9));
  for (size_t k = 1; k < ticks.values.size(); ++k) {
    const double gap = step / 3.0 * 200.0;
    CHECK(gap >= double(width(ticks.labels[k]) + 24));
  }
  // Wider pictures get more, finer ticks; labels read as the values.
  const auto wide = axisTicks(-2.0, 1.0, 1000, width, 24);
  CHECK(wide.values.size() > ticks.values.size());
  CHECK(wide.labels.front() == (wide.step < 1 ? "-2.0" : "-2"));
}

TEST_CASE("A failed picture write leaves the PNG and its YAML as they were", "[mapexport][png]") {
  vt::TempDir dir("mapexport");
  Fixture f;
  f.set({0, 0, 0}, 3.0f);
  exportSlicePng(f.map, dir / "keep.png", 0, 2);
  const std::vector<uint8_t> png = readBytes(dir / "keep.png"), yaml = readBytes(dir / "keep.yaml");
  REQUIRE(!yaml.empty());
  // A layer with nothing to draw, and a YAML that cannot be written (a folder in its place).
  CHECK_THROWS(exportSlicePng(f.map, dir / "keep.png", 40, 2));
  std::filesystem::create_directory(dir / "blocked.yaml");
  CHECK_THROWS_WITH(exportSlicePng(f.map, dir / "blocked.png", 0, 2), Catch::Contains("blocked.yaml"));
  CHECK_FALSE(std::filesystem::exists(dir / "blocked.png"));
  CHECK(readBytes(dir / "keep.png") == png);
  CHECK(readBytes(dir / "keep.yaml") == yaml);
  // A stream gets the picture and no YAML.
  CHECK(detail::pictureYamlPath("/dev/null").empty());
  CHECK(detail::pictureYamlPath(dir / "a.png") == dir / "a.yaml");
  CHECK(detail::pictureYamlPath(dir / "a.yaml") == dir / "a.yaml.yaml");
}

TEST_CASE("The PNG writer round-trips RGB and RGBA images through any filter choice", "[png]") {
  vt::TempDir dir("png");
  vt::Rng rng(21);
  for (PngFormat format : {PngFormat::Rgb8, PngFormat::Rgba8}) {
    const uint32_t width = 37, height = 23;
    const size_t channels = size_t(format);
    std::vector<uint8_t> pixels(width * height * channels);
    // Noise, gradients and flat runs, so that the encoder picks different filters.
    for (uint32_t y = 0; y < height; ++y)
      for (uint32_t x = 0; x < width; ++x)
        for (size_t c = 0; c < channels; ++c) {
          uint8_t& v = pixels[(y * width + x) * channels + c];
          v = y % 3 == 0 ? uint8_t(rng.u32()) : y % 3 == 1 ? uint8_t(x * 7 + c) : uint8_t(y * 11);
        }
    writePng(dir / "image.png", width, height, pixels, format);
    const Png png = decodePng(readBytes(dir / "image.png"));
    CHECK(png.width == width);
    CHECK(png.height == height);
    CHECK(png.channels == int(channels));
    CHECK(png.pixels == pixels);
    CHECK(png.chunks == std::vector<std::string>{"IHDR", "IDAT", "IEND"});
  }
  // A flat image compresses to almost nothing.
  const std::vector<uint8_t> flat(500 * 400 * 3, 64);
  writePng(dir / "flat.png", 500, 400, flat);
  CHECK(std::filesystem::file_size(dir / "flat.png") < 2000);
  CHECK(decodePng(readBytes(dir / "flat.png")).pixels == flat);
  CHECK_THROWS_WITH(writePng(dir / "bad.png", 4, 4, std::vector<uint8_t>(47)), Catch::Contains("need 48 bytes, got 47"));
  CHECK_THROWS_WITH(encodePng(0, 4, {}), Catch::Contains("empty"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad.png"));
}

TEST_CASE("Exports stay finite: NaN and -inf occupancy are left out of slices, OctoMap trees and PLY, and counted",
          "[mapexport][png]") {
  vt::TempDir dir("mapexport");
  Fixture f;
  const int32_t z = 1;
  f.set({0, 0, z}, 3.0f);
  f.set({1, 0, z}, -1.0f);
  f.set({2, 0, z}, std::nanf(""));  // only a map built through the API can hold these:
  f.set({3, 0, z}, -INFINITY);      // loading refuses them
  const SliceImage slice = renderSlice(f.map, z, 1);
  CHECK(slice.occupied == 1);
  CHECK(slice.free == 1);
  CHECK(slice.nonFinite == 2);
  CHECK(slice.maxX == 1);  // the bounds hold the finite voxels only
  const ExportCounts octomap = exportOctomap(f.map, dir / "map.bt");
  CHECK(octomap.written == 2);
  CHECK(octomap.nonFinite == 2);
  // The header's count and the body agree: one vertex of 16 bytes (x y z value).
  CHECK(exportOccupiedPly(f.map, dir / "occupied.ply", {.withValue = true}) == 1);
  const std::vector<uint8_t> ply = readBytes(dir / "occupied.ply");
  const std::string text(ply.begin(), ply.end());
  CHECK(text.find("element vertex 1\n") != std::string::npos);
  CHECK(ply.size() == text.find("end_header\n") + 11 + 16);
}

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
#include "voxen/io/map_export.hpp"
#include "voxen/io/octomap_io.hpp"
#include "voxen/io/png_writer.hpp"
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
  // Observed voxels in other layers do not widen the slice.
  f.set({100, 100, z + 1}, 3.0f);
  f.set({-50, 0, z - 1}, -1.0f);
  f.set({20, 20, z + 4}, -1.0f);  // another layer of the same region column... different region z

  // The slice sits at the image's top-left; the legend lies below it (and widens the image).
  auto countColours = [](const Png& png, uint32_t w, uint32_t h) {
    std::array<size_t, 3> counts{};
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const uint8_t* p = png.at(x, y);
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
    auto pixel = [&](int x, int y) { return png.at(uint32_t(x - slice.minX), uint32_t(slice.maxY - y)); };
    CHECK(isColour(pixel(-3, 0), kSliceFreeRgb));
    CHECK(isColour(pixel(4, 6), kSliceOccupiedRgb));
    CHECK(isColour(png.at(7, 0), kSliceOccupiedRgb));  // top-right
    CHECK(isColour(pixel(0, -2), kSliceOccupiedRgb));
    CHECK(isColour(png.at(3, 8), kSliceOccupiedRgb));  // bottom row
    CHECK(isColour(pixel(1, 1), kSliceFreeRgb));
    CHECK(isColour(pixel(0, 0), kSliceUnknownRgb));
    CHECK(isColour(png.at(0, 0), kSliceUnknownRgb));
    const auto counts = countColours(png, 8, 9);
    CHECK(counts[0] == 8 * 9 - 4);
    CHECK(counts[1] == 2);
    CHECK(counts[2] == 2);
    CHECK(legendBelow(png, 9));
  }
  SECTION("scaled") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z, 3);
    const Png png = decodePng(readBytes(dir / "slice.png"));
    CHECK(slice.width == 24);
    CHECK(slice.height == 27);
    CHECK(slice.scale == 3);
    REQUIRE(png.height > 27);
    for (uint32_t dy = 0; dy < 3; ++dy)
      for (uint32_t dx = 0; dx < 3; ++dx) {
        CHECK(isColour(png.at(21 + dx, dy), kSliceOccupiedRgb));  // voxel (4, 6)
        CHECK(isColour(png.at(dx, 18 + dy), kSliceFreeRgb));      // voxel (-3, 0): row (6 - 0) * 3
      }
    CHECK(isColour(png.at(20, 2), kSliceUnknownRgb));
    CHECK(isColour(png.at(21, 3), kSliceUnknownRgb));
  }
  SECTION("by default a small slice is scaled up, within the caps") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z);
    CHECK(slice.scale == 32);  // 8 voxels across: 800 pixels would take 100 per voxel
    const Png png = decodePng(readBytes(dir / "slice.png"));
    CHECK(slice.width == 256);
    CHECK(png.width >= 256);
    CHECK(png.height > 9 * 32);
    const auto counts = countColours(png, 256, 9 * 32);
    CHECK(counts[2] == 2 * 32 * 32);
    CHECK(autoSliceScale(1000, 10) == 1);
    CHECK(autoSliceScale(100, 100) == 8);
    CHECK(autoSliceScale(300, 3000) == 1);  // 4096 pixels at most on the longer side
    CHECK(autoSliceScale(400, 300) == 2);
  }
  SECTION("a layer with nothing observed names the layers that have something") {
    CHECK_THROWS_WITH(renderSlice(f.map, 40), Catch::Contains("no observed voxel in layer z=40") && Catch::Contains("layers -4..1"));
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

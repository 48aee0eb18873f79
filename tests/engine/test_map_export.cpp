// Map exports: the occupied-voxel PLY (header, count, coordinates, values) and the PNG slice,
// decoded here by a small independent PNG reader (chunk CRCs, zlib, all five row filters).
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "support/gpu_fixture.hpp"  // vt::Rng
#include "support/temp_dir.hpp"
#include "voxen/io/map_export.hpp"
#include "voxen/io/png_writer.hpp"
#include "voxen/host/error.hpp"

using namespace voxen;

namespace {

std::vector<uint8_t> readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// ---- a minimal PNG reader: 8-bit RGB or RGBA, no interlace ---------------------------

struct Png {
  uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
  std::vector<std::string> chunks;  // chunk types in order
  const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t(y) * width + x) * channels]; }
};

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

Png decodePng(const std::vector<uint8_t>& file) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  REQUIRE(file.size() >= 8);
  REQUIRE(std::memcmp(file.data(), signature, 8) == 0);
  Png png;
  std::vector<uint8_t> idat;
  size_t pos = 8;
  while (pos < file.size()) {
    REQUIRE(pos + 12 <= file.size());
    const uint32_t length = be32(&file[pos]);
    REQUIRE(pos + 12 + length <= file.size());
    const std::string type(reinterpret_cast<const char*>(&file[pos + 4]), 4);
    const uint8_t* data = &file[pos + 8];
    INFO("chunk " << type);
    REQUIRE(uint32_t(crc32(0, &file[pos + 4], 4 + length)) == be32(data + length));
    png.chunks.push_back(type);
    if (type == "IHDR") {
      REQUIRE(length == 13);
      png.width = be32(data);
      png.height = be32(data + 4);
      REQUIRE(data[8] == 8);  // bit depth
      REQUIRE((data[9] == 2 || data[9] == 6));
      png.channels = data[9] == 2 ? 3 : 4;
      REQUIRE(data[10] == 0);
      REQUIRE(data[11] == 0);
      REQUIRE(data[12] == 0);
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + length);
    }
    pos += 12 + length;
  }
  REQUIRE(png.chunks.front() == "IHDR");
  REQUIRE(png.chunks.back() == "IEND");
  const size_t stride = size_t(png.width) * png.channels;
  std::vector<uint8_t> raw((stride + 1) * png.height);
  uLongf rawBytes = uLongf(raw.size());
  REQUIRE(uncompress(raw.data(), &rawBytes, idat.data(), uLong(idat.size())) == Z_OK);
  REQUIRE(rawBytes == raw.size());
  png.pixels.resize(stride * png.height);
  const int bpp = png.channels;
  for (uint32_t y = 0; y < png.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &png.pixels[y * stride];
    const uint8_t* prior = y ? out - stride : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(bpp) ? out[i - bpp] : 0;
      const int b = prior ? prior[i] : 0;
      const int c = prior && i >= size_t(bpp) ? prior[i - bpp] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: FAIL("row " << y << " has filter type " << int(filter));
      }
      out[i] = uint8_t(in[i] + predictor);
    }
  }
  return png;
}

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
                   kLayerHitMiss};
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

  SECTION("one pixel per voxel, y up") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z);
    CHECK(slice.minX == -3);
    CHECK(slice.maxX == 4);
    CHECK(slice.minY == -2);
    CHECK(slice.maxY == 6);
    CHECK(slice.occupied == 2);
    CHECK(slice.free == 2);
    const Png png = decodePng(readBytes(dir / "slice.png"));
    REQUIRE(png.width == 8);
    REQUIRE(png.height == 9);
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
    size_t counts[3] = {0, 0, 0};
    for (uint32_t y = 0; y < png.height; ++y)
      for (uint32_t x = 0; x < png.width; ++x) {
        const uint8_t* p = png.at(x, y);
        counts[0] += isColour(p, kSliceUnknownRgb), counts[1] += isColour(p, kSliceFreeRgb), counts[2] += isColour(p, kSliceOccupiedRgb);
      }
    CHECK(counts[0] == 8 * 9 - 4);
    CHECK(counts[1] == 2);
    CHECK(counts[2] == 2);
  }
  SECTION("scaled") {
    const SliceImage slice = exportSlicePng(f.map, dir / "slice.png", z, 3);
    const Png png = decodePng(readBytes(dir / "slice.png"));
    REQUIRE(png.width == 24);
    REQUIRE(png.height == 27);
    CHECK(slice.width == 24);
    for (uint32_t dy = 0; dy < 3; ++dy)
      for (uint32_t dx = 0; dx < 3; ++dx) {
        CHECK(isColour(png.at(21 + dx, dy), kSliceOccupiedRgb));  // voxel (4, 6)
        CHECK(isColour(png.at(dx, 18 + dy), kSliceFreeRgb));      // voxel (-3, 0): row (6 - 0) * 3
      }
    CHECK(isColour(png.at(20, 2), kSliceUnknownRgb));
    CHECK(isColour(png.at(21, 3), kSliceUnknownRgb));
  }
  SECTION("a layer with nothing observed names the layers that have something") {
    CHECK_THROWS_WITH(renderSlice(f.map, 40), Catch::Contains("no observed voxel in layer z=40") && Catch::Contains("layers -4..1"));
    CHECK_THROWS_WITH(exportSlicePng(f.map, dir / "none.png", 40), Catch::Contains("none.png"));
    CHECK_FALSE(std::filesystem::exists(dir / "none.png"));
    CHECK_THROWS_WITH(renderSlice(f.map, z, 0), Catch::Contains("scale 0"));
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

#pragma once
// A minimal PNG reader for the tests of PNG exports, written apart from the code under test:
// 8-bit RGB or RGBA, no interlace, chunk CRCs checked, all five row filters.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace vt {

struct Png {
  uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
  std::vector<std::string> chunks;  // chunk types in order
  const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t(y) * width + x) * channels]; }
};

inline uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

inline Png decodePng(const std::vector<uint8_t>& file) {
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

}  // namespace vt

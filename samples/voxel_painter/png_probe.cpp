// png_probe: reads the 8-bit RGB/RGBA PNGs that voxen writes and answers the questions the
// voxel_painter tests ask, so the tests need no Python or image tools:
//   png_probe size IMAGE.png                     -> "W H"
//   png_probe pixel IMAGE.png X Y                -> "R G B A"
//   png_probe count IMAGE.png color RRGGBB [TOL] -> pixels within TOL (per channel) of the colour
//   png_probe count IMAGE.png dominant red|green|blue -> pixels where that channel clearly leads
//   png_probe diff A.png B.png                   -> pixels that differ (the sizes must match)
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
  const uint8_t* at(uint32_t x, uint32_t y) const { return &rgba[(uint64_t(y) * width + x) * 4]; }
};

uint32_t bigEndian(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return uint8_t(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

Image load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 8 || file[1] != 'P' || file[2] != 'N' || file[3] != 'G') throw std::runtime_error(path + ": not a PNG");
  Image image;
  uint32_t channels = 0;
  std::vector<uint8_t> compressed;
  for (size_t at = 8; at + 12 <= file.size();) {
    const uint32_t length = bigEndian(&file[at]);
    const std::string type(file.begin() + at + 4, file.begin() + at + 8);
    if (at + 12 + length > file.size()) throw std::runtime_error(path + ": truncated chunk " + type);
    const uint8_t* data = &file[at + 8];
    if (type == "IHDR") {
      image.width = bigEndian(data);
      image.height = bigEndian(data + 4);
      if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
        throw std::runtime_error(path + ": only 8-bit RGB/RGBA without interlace is read");
      channels = data[9] == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    }
    at += 12 + length;
  }
  if (!channels) throw std::runtime_error(path + ": no IHDR");
  const uint64_t stride = uint64_t(image.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf rawSize = uLongf(raw.size());
  if (uncompress(raw.data(), &rawSize, compressed.data(), uLong(compressed.size())) != Z_OK || rawSize != raw.size())
    throw std::runtime_error(path + ": bad image data");
  std::vector<uint8_t> pixels(stride * image.height);
  for (uint32_t y = 0; y < image.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* src = &raw[y * (stride + 1) + 1];
    uint8_t* row = &pixels[y * stride];
    const uint8_t* up = y ? row - stride : nullptr;
    for (uint64_t i = 0; i < stride; ++i) {
      const int a = i >= channels ? row[i - channels] : 0, b = up ? up[i] : 0, c = (up && i >= channels) ? up[i - channels] : 0;
      const int predictor = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
      if (filter > 4) throw std::runtime_error(path + ": bad row filter");
      row[i] = uint8_t(src[i] + predictor);
    }
  }
  image.rgba.resize(uint64_t(image.width) * image.height * 4);
  for (uint64_t p = 0; p < uint64_t(image.width) * image.height; ++p)
    for (uint32_t c = 0; c < 4; ++c) image.rgba[p * 4 + c] = c < channels ? pixels[p * channels + c] : 255;
  return image;
}

uint64_t countWhere(const Image& image, auto predicate) {
  uint64_t n = 0;
  for (uint32_t y = 0; y < image.height; ++y)
    for (uint32_t x = 0; x < image.width; ++x) n += predicate(image.at(x, y)) ? 1 : 0;
  return n;
}

int usage() {
  std::fputs("usage: png_probe size IMG | pixel IMG X Y | count IMG color RRGGBB [TOL] | count IMG dominant red|green|blue"
             " | diff A B\n",
             stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() < 2) return usage();
    const Image image = load(a[1]);
    if (a[0] == "size" && a.size() == 2) {
      std::printf("%u %u\n", image.width, image.height);
    } else if (a[0] == "pixel" && a.size() == 4) {
      const uint32_t x = uint32_t(std::stoul(a[2])), y = uint32_t(std::stoul(a[3]));
      if (x >= image.width || y >= image.height) throw std::runtime_error("pixel outside the image");
      const uint8_t* p = image.at(x, y);
      std::printf("%u %u %u %u\n", p[0], p[1], p[2], p[3]);
    } else if (a[0] == "count" && a.size() >= 4 && a[2] == "color") {
      const uint32_t rgb = uint32_t(std::stoul(a[3], nullptr, 16));
      const int tolerance = a.size() > 4 ? std::stoi(a[4]) : 0;
      const int want[3] = {int(rgb >> 16 & 255), int(rgb >> 8 & 255), int(rgb & 255)};
      std::printf("%llu\n", (unsigned long long)countWhere(image, [&](const uint8_t* p) {
        for (int c = 0; c < 3; ++c)
          if (std::abs(int(p[c]) - want[c]) > tolerance) return false;
        return true;
      }));
    } else if (a[0] == "count" && a.size() == 4 && a[2] == "dominant") {
      const int c = a[3] == "red" ? 0 : a[3] == "green" ? 1 : a[3] == "blue" ? 2 : -1;
      if (c < 0) return usage();
      // "Clearly leads": above 24 and 1.5 times either other channel, which survives
      // the diffuse shading of a saturated colour even on surfaces facing away from the light.
      std::printf("%llu\n", (unsigned long long)countWhere(image, [&](const uint8_t* p) {
        const int v = p[c], o1 = p[(c + 1) % 3], o2 = p[(c + 2) % 3];
        return v > 24 && 2 * v > 3 * o1 && 2 * v > 3 * o2;
      }));
    } else if (a[0] == "diff" && a.size() == 3) {
      const Image other = load(a[2]);
      if (other.width != image.width || other.height != image.height) throw std::runtime_error("the sizes differ");
      uint64_t n = 0;
      for (size_t p = 0; p < image.rgba.size(); p += 4)
        n += (image.rgba[p] != other.rgba[p] || image.rgba[p + 1] != other.rgba[p + 1] || image.rgba[p + 2] != other.rgba[p + 2]);
      std::printf("%llu\n", (unsigned long long)n);
    } else {
      return usage();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "png_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}

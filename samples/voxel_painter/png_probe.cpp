// png_probe: reads PNGs (such as the 8-bit RGB/RGBA ones voxen writes) with libpng and answers the questions the
// voxel_painter tests ask, so the tests need no Python or image tools:
//   png_probe size IMAGE.png                     -> "W H"
//   png_probe pixel IMAGE.png X Y                -> "R G B A"
//   png_probe count IMAGE.png color RRGGBB [TOL] -> pixels within TOL (per channel) of the colour
//   png_probe count IMAGE.png dominant red|green|blue -> pixels where that channel clearly leads
//   png_probe diff A.png B.png                   -> pixels that differ (the sizes must match)
#include <png.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
  const uint8_t* at(uint32_t x, uint32_t y) const { return &rgba[(uint64_t(y) * width + x) * 4]; }
};

// Any PNG, as 8-bit RGBA (libpng's simplified API converts; an RGB image gets alpha 255).
Image load(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) throw std::runtime_error(path + ": " + png.message);
  png.format = PNG_FORMAT_RGBA;
  Image image;
  image.width = png.width;
  image.height = png.height;
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) {
    const std::string message = png.message;
    png_image_free(&png);
    throw std::runtime_error(path + ": " + message);
  }
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

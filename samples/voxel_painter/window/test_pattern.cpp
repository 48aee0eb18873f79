#include "window/test_pattern.hpp"

namespace voxel_painter {

std::vector<uint32_t> testPatternPixels(uint32_t width, uint32_t height) {
  std::vector<uint32_t> pixels(uint64_t(width) * height);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t r = width > 1 ? x * 255 / (width - 1) : 0;
      const uint32_t g = height > 1 ? y * 255 / (height - 1) : 0;
      pixels[uint64_t(y) * width + x] = r | (g << 8) | (kTestPatternBlue << 16) | (0xffu << 24);
    }
  return pixels;
}

TestPattern::TestPattern(voxen::Scheduler& scheduler, uint32_t width, uint32_t height)
    : scheduler_(scheduler),
      width_(width),
      height_(height),
      image_(scheduler.device(), "test pattern", uint64_t(width) * height * 4) {}

void TestPattern::frame() {
  if (!uploaded_) {
    const auto pixels = testPatternPixels(width_, height_);
    scheduler_.upload(image_.range(), pixels.data(), pixels.size() * 4);
    uploaded_ = true;
  }
  scheduler_.submit();
}

}  // namespace voxel_painter

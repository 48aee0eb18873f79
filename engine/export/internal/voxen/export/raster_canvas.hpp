#pragma once
// An RGB image to draw legends on: filled rectangles and text in a 5 x 7 pixel font (ASCII
// 32-126, each font pixel drawn as a size x size block). Everything is clipped to the image.
#include <cstdint>
#include <string_view>
#include <vector>

namespace voxen::detail {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};
inline constexpr Rgb kBlack{0, 0, 0};
inline constexpr Rgb kWhite{255, 255, 255};

class Canvas {
 public:
  Canvas(uint32_t width, uint32_t height, Rgb background);
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  const std::vector<uint8_t>& rgb() const { return rgb_; }

  void fill(int64_t x, int64_t y, int64_t w, int64_t h, Rgb colour);
  // A one-pixel outline of the rectangle.
  void frame(int64_t x, int64_t y, int64_t w, int64_t h, Rgb colour);
  // Copies an RGB image (rows top to bottom) with its top-left corner at (x, y).
  void blit(const std::vector<uint8_t>& rgb, uint32_t w, uint32_t h, int64_t x, int64_t y);
  // Draws `text` with its top-left corner at (x, y); characters outside ASCII 32-126 as '?'.
  void text(int64_t x, int64_t y, std::string_view text, uint32_t size, Rgb colour);

  // Pixels a text takes: 6 x size per character (the last one's gap included), 7 x size high.
  static uint32_t textWidth(std::string_view text, uint32_t size) { return uint32_t(text.size()) * 6 * size; }
  static uint32_t textHeight(uint32_t size) { return 7 * size; }

 private:
  uint32_t width_, height_;
  std::vector<uint8_t> rgb_;
};

}  // namespace voxen::detail

#include "render_heightmap_legend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "voxen/export/colour_bar.hpp"
#include "voxen/export/cost_colour.hpp"
#include "voxen/export/raster_canvas.hpp"

namespace voxen::detail {

namespace {

// The sizes of renderMap's legend (render_legend.cpp), so both bands look alike.
uint32_t padding(uint32_t textSize) { return 6 * textSize; }

ColourBarStyle barStyle(uint32_t width, uint32_t textSize) {
  ColourBarStyle style;  // the heat ramp: the colours costColour and the height mesh use
  style.textSize = textSize;
  style.barHeight = 9 * textSize;
  style.width = std::min<uint32_t>(200 * textSize, uint32_t(width * 0.45));
  return style;
}

// A filled, framed square and its label; returns the right end of the label.
int64_t swatch(Canvas& canvas, int64_t x, int64_t y, uint32_t side, uint32_t textSize, Rgb colour, const std::string& label) {
  canvas.fill(x, y, side, side, colour);
  canvas.frame(x, y, side, side, kBlack);
  const int64_t textLeft = x + side + 2 * textSize;
  canvas.text(textLeft, y + (int64_t(side) - Canvas::textHeight(textSize)) / 2, label, textSize, kBlack);
  return textLeft + Canvas::textWidth(label, textSize);
}

}  // namespace

void drawHeightmapLegend(HeightmapRenderImage& out, const LegendLayout& layout, HeightmapColouring colouring,
                         const std::string& scaleNote) {
  RenderImage& image = out.image;
  const uint32_t t = layout.textSize, pad = padding(t), top = image.height - layout.bandHeight;
  Canvas canvas(image.width, layout.bandHeight, kWhite);
  canvas.fill(0, 0, image.width, 1, kBlack);  // where the picture ends

  const ColourBarStyle style = barStyle(image.width, t);
  int64_t used = pad + 1 + style.width;
  if (colouring == HeightmapColouring::Cost) {
    drawColourBar(canvas, pad + 1, pad + 1, ColourRange{0.0, 100.0}, "cost (0 easy .. 100 hard)", style);
    const int64_t x = used + 4 * pad;
    const int64_t a = swatch(canvas, x, pad + 1, style.barHeight, t, kCostLethalRgb, "lethal (" + std::to_string(out.lethal) + ")");
    const int64_t b = swatch(canvas, x, pad + 1 + style.barHeight + 4 * t, style.barHeight, t, kCostUnknownRgb,
                             "unknown (" + std::to_string(out.unknown) + ")");
    used = std::max(a, b);
  } else {
    drawColourBar(canvas, pad + 1, pad + 1, ColourRange::of(image.heightMin, image.heightMax), "height (m)", style);
  }

  // The scale: the longest round length that fits a quarter of the width and the room right
  // of the rest, its label with the note where that fits too.
  image.scaleMetres = 0.0;
  const int64_t right = int64_t(image.width) - pad - 1, room = right - (used + 2 * int64_t(pad));
  const double limit = std::min({0.25 * image.width, 160.0 * t, double(room)}) * image.metresPerPixel;
  const double metres = limit > 0.0 ? niceLength(limit) : 0.0;
  const int64_t length = metres > 0.0 ? std::max<int64_t>(1, std::llround(metres / image.metresPerPixel)) : 0;
  char text[48];
  std::snprintf(text, sizeof text, "%g m", metres);
  std::string label = text + scaleNote;
  if (int64_t(Canvas::textWidth(label, t)) > room) label = text;
  if (length > 0 && length <= room && int64_t(Canvas::textWidth(label, t)) <= room) {
    image.scaleMetres = metres;
    const int64_t barLeft = right - length + 1, barTop = pad + 1 + int64_t(style.barHeight) / 2 - int64_t(t);
    canvas.fill(barLeft, barTop, length, 2 * t, kBlack);
    canvas.fill(barLeft, pad + 1, t, style.barHeight, kBlack);  // end marks
    canvas.fill(right - t + 1, pad + 1, t, style.barHeight, kBlack);
    canvas.text(right - Canvas::textWidth(label, t) + 1, pad + 1 + style.barHeight + 6, label, t, kBlack);
  }

  const std::vector<uint8_t>& rgb = canvas.rgb();
  for (uint32_t row = 0; row < layout.bandHeight; ++row)
    for (uint32_t column = 0; column < image.width; ++column) {
      const size_t from = (size_t(row) * image.width + column) * 3, to = ((size_t(top) + row) * image.width + column) * 4;
      image.pixels[to] = rgb[from], image.pixels[to + 1] = rgb[from + 1], image.pixels[to + 2] = rgb[from + 2];
      image.pixels[to + 3] = 255;
    }
}

}  // namespace voxen::detail

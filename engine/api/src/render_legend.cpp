#include "render_legend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/glm.hpp>

#include "voxen/host/setting_error.hpp"
#include "voxen/export/colour_bar.hpp"
#include "voxen/export/raster_canvas.hpp"
#include "voxen/painter/map_grid.hpp"

namespace voxen::detail {

namespace {

constexpr uint32_t kMinWidth = 320;

uint32_t padding(uint32_t textSize) { return 6 * textSize; }

detail::ColourBarStyle barStyle(uint32_t width, uint32_t textSize) {
  detail::ColourBarStyle style;
  style.textSize = textSize;
  style.barHeight = 9 * textSize;
  style.width = std::min<uint32_t>(200 * textSize, uint32_t(width * 0.45));
  // The painter's own height colours (map_grid.cpp), so the bar reads the picture.
  style.colour = [](double t) {
    const uint32_t c = heightColor(float(t));
    return Rgb{uint8_t(c & 0xff), uint8_t(c >> 8 & 0xff), uint8_t(c >> 16 & 0xff)};
  };
  return style;
}

std::string metresLabel(double metres) {
  char text[32];
  std::snprintf(text, sizeof text, "%g m", metres);
  return text;
}

}  // namespace

LegendLayout legendLayout(uint32_t width, uint32_t height) {
  LegendLayout layout;
  layout.textSize = width >= 800 && height >= 480 ? 2 : 1;
  layout.bandHeight = detail::colourBarHeight(barStyle(width, layout.textSize)) + 2 * padding(layout.textSize);
  // The map keeps at least two thirds of the picture.
  if (width < kMinWidth || height < 3 * layout.bandHeight) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "render: a %u x %u picture is too small for {} (at least %u x %u pixels): draw it larger or "
                  "without the legend",
                  width, height, kMinWidth, 3 * layout.bandHeight);
    throw SettingError(SettingError::Kind::Invalid, "RenderOptions::legend", "the legend", text);
  }
  return layout;
}

void drawLegend(RenderImage& image, const LegendLayout& layout, const std::string& scaleNote) {
  const uint32_t t = layout.textSize, pad = padding(t), top = image.height - layout.bandHeight;
  Canvas canvas(image.width, layout.bandHeight, detail::kWhite);
  canvas.fill(0, 0, image.width, 1, detail::kBlack);  // where the map ends

  const detail::ColourBarStyle style = barStyle(image.width, t);
  const detail::ColourRange range = detail::ColourRange::of(image.heightMin, image.heightMax);
  detail::drawColourBar(canvas, pad + 1, pad + 1, range, "height (m)", style);

  // The scale: the longest round length that fits a quarter of the picture's width.
  const double limit = std::min(0.25 * image.width, 160.0 * t) * image.metresPerPixel;
  image.scaleMetres = detail::niceLength(limit);
  const int64_t length = std::max<int64_t>(1, std::llround(image.scaleMetres / image.metresPerPixel));
  const std::string label = metresLabel(image.scaleMetres) + scaleNote;
  const int64_t right = int64_t(image.width) - pad - 1;
  const int64_t barLeft = right - length + 1, barTop = pad + 1 + int64_t(style.barHeight) / 2 - int64_t(t);
  canvas.fill(barLeft, barTop, length, 2 * t, detail::kBlack);
  canvas.fill(barLeft, pad + 1, t, style.barHeight, detail::kBlack);  // end marks
  canvas.fill(right - t + 1, pad + 1, t, style.barHeight, detail::kBlack);
  const int64_t labelWidth = Canvas::textWidth(label, t);
  const int64_t labelLeft = std::max<int64_t>(right - labelWidth + 1, int64_t(style.width) + 4 * pad);
  canvas.text(labelLeft, pad + 1 + style.barHeight + 6, label, t, detail::kBlack);

  // Into the RGBA picture's bottom band.
  const std::vector<uint8_t>& rgb = canvas.rgb();
  for (uint32_t row = 0; row < layout.bandHeight; ++row)
    for (uint32_t column = 0; column < image.width; ++column) {
      const size_t from = (size_t(row) * image.width + column) * 3, to = ((size_t(top) + row) * image.width + column) * 4;
      image.pixels[to] = rgb[from], image.pixels[to + 1] = rgb[from + 1], image.pixels[to + 2] = rgb[from + 2];
      image.pixels[to + 3] = 255;
    }
}

void setPlotScale(RenderImage& image, bool orthographic, double orthoHeight, double fovYDegrees, uint32_t plotHeight) {
  if (orthographic) {
    image.metresPerPixel = orthoHeight / plotHeight;
    image.plotLeft = image.target.x - 0.5 * image.width * image.metresPerPixel;
    image.plotTop = image.target.y + 0.5 * plotHeight * image.metresPerPixel;
  } else {
    const double depth = glm::length(image.eye - image.target);
    image.metresPerPixel = 2.0 * depth * std::tan(glm::radians(fovYDegrees) * 0.5) / plotHeight;
  }
}

}  // namespace voxen::detail

namespace voxen {

bool renderLegendFits(uint32_t width, uint32_t height) {
  try {
    detail::legendLayout(width, height);
    return true;
  } catch (const SettingError&) {
    return false;
  }
}

}  // namespace voxen

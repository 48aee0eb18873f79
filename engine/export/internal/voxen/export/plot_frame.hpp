#pragma once
// The frame of every 2D map picture Voxen writes: the plot (an RGB image of a rectangle of
// the world, x to the right, y up) inside a black border, metre axes on its left and bottom
// (ticks 1, 2 or 5 x 10^n metres apart, labelled in world coordinates, as many as fit without
// their labels touching), a title above it and a legend below it (swatches, colour bars,
// notes). The picture's pixels are square: one plot pixel is metresPerPixel on both axes, and
// the whole picture (margins included) is placed in the world by its origin, so a reader can
// put it on a map (writeMapPicture adds the map_server YAML that says so).
//
// Usage:
//   PlotFrame frame("occupancy of office.vxm at z 0.3 to 0.4 m", {minX, minY, maxX, maxY}, w, h);
//   frame.addSwatches({{red, "occupied (12)"}, {white, "free (30)"}});
//   frame.addColourBar(range, "clearance (m)", colourOf);
//   const FramedPicture picture = frame.draw(plotRgb);
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "voxen/export/colour_bar.hpp"
#include "voxen/export/raster_canvas.hpp"

namespace voxen::detail {

// A rectangle of the world in metres: the plot's left, bottom, right and top edges.
struct WorldRect {
  double minX = 0.0, minY = 0.0, maxX = 1.0, maxY = 1.0;
};

struct LegendSwatch {
  Rgb colour;
  std::string label;
};

// The picture and where it lies in the world: pixel column c, row r (rows top to bottom) of
// the canvas covers x from originX + c * metresPerPixel, y from originY + (height - 1 - r) *
// metresPerPixel (origin: the lower-left corner of the lower-left pixel, as map_server reads it).
struct FramedPicture {
  Canvas canvas{1, 1, kWhite};
  double metresPerPixel = 1.0;
  double originX = 0.0, originY = 0.0;
  uint32_t plotLeft = 0, plotTop = 0;  // the plot's top-left pixel in the canvas
  uint32_t plotWidth = 0, plotHeight = 0;
  WorldRect world;                     // what the plot covers
};

// Axis ticks for [lo, hi] drawn over `pixels`: round values (1, 2 or 5 x 10^n apart), as many
// as leave `minGap` pixels between neighbours' labels; `labelExtent` gives a label's extent
// along the axis in pixels. At least the two ends' round values when nothing else fits.
struct AxisTicks {
  std::vector<double> values;
  std::vector<std::string> labels;
  double step = 0.0;
};
AxisTicks axisTicks(double lo, double hi, uint32_t pixels, const std::function<uint32_t(const std::string&)>& labelExtent,
                    uint32_t minGap);

class PlotFrame {
 public:
  // `world` is what the plotWidth x plotHeight plot shows (the same metres per pixel on both
  // axes: (maxX - minX) / plotWidth == (maxY - minY) / plotHeight).
  PlotFrame(std::string title, WorldRect world, uint32_t plotWidth, uint32_t plotHeight, uint32_t textSize = 2);

  // Legend rows below the axes, drawn in the order they were added.
  void addSwatches(std::vector<LegendSwatch> swatches);
  void addColourBar(const ColourRange& range, std::string caption, std::function<Rgb(double)> colour);
  void addNote(std::string line);

  // The canvas: `plotRgb` (plotWidth x plotHeight RGB, rows top to bottom) framed.
  FramedPicture draw(const std::vector<uint8_t>& plotRgb) const;

 private:
  struct LegendRow {
    enum class Kind { Swatches, ColourBar, Note } kind;
    std::vector<LegendSwatch> swatches;
    ColourRange range;
    std::string text;  // the caption or the note
    std::function<Rgb(double)> colour;
  };
  uint32_t rowHeight(const LegendRow& row) const;
  uint32_t rowWidth(const LegendRow& row) const;
  uint32_t barWidth() const;

  std::string title_;
  WorldRect world_;
  uint32_t plotWidth_, plotHeight_, text_;
  AxisTicks xTicks_, yTicks_;
  std::vector<LegendRow> rows_;
};

}  // namespace voxen::detail

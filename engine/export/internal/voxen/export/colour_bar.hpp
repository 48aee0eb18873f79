#pragma once
// A labelled horizontal colour bar for heat-map PNGs: the ramp, ticks at round values with
// their labels, and a caption (the quantity and its unit). Any export that draws a heat map
// may use it, with its own colour ramp.
#include <functional>
#include <string>
#include <vector>

#include "voxen/export/raster_canvas.hpp"

namespace voxen::detail {

// A perceptually ordered ramp for t in [0, 1] (dark blue, teal, green, yellow, as viridis);
// t outside is clamped, NaN gives the low end.
Rgb heatColour(double t);

// The range a colour scale spans: [lo, hi] of the finite values drawn, widened when they
// are all equal so that the bar still has two ends.
struct ColourRange {
  double lo = 0.0, hi = 1.0;
  static ColourRange of(double lo, double hi);
  double fraction(double value) const { return (value - lo) / (hi - lo); }
};

// Round tick values (1, 2 or 5 times a power of ten) inside [lo, hi], at most maxTicks.
std::vector<double> niceTicks(double lo, double hi, int maxTicks);
// A tick's label, with as many digits as the step between ticks needs ("0.25", "1.7e+09").
std::string tickLabel(double value, double step);
// A round length (1, 2 or 5 times a power of ten) at most `limit` (> 0).
double niceLength(double limit);

struct ColourBarStyle {
  uint32_t width = 400;      // pixels of the ramp
  uint32_t barHeight = 18;
  uint32_t textSize = 2;     // font pixel size of the labels and the caption
  std::function<Rgb(double)> colour = heatColour;
};

// Draws the bar with its top-left corner at (x, y): the ramp from range.lo (left) to
// range.hi (right) with a black frame, tick marks and labels below, then the caption.
// Returns the height used; colourBarHeight gives it without drawing.
uint32_t drawColourBar(Canvas& canvas, int64_t x, int64_t y, const ColourRange& range, const std::string& caption,
                       const ColourBarStyle& style = {});
uint32_t colourBarHeight(const ColourBarStyle& style = {});

}  // namespace voxen::detail

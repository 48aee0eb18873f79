#include "voxen/export/plot_frame.hpp"

#include <algorithm>
#include <cmath>

namespace voxen::detail {

namespace {

constexpr uint32_t kPad = 12;     // around the picture
constexpr uint32_t kTick = 6;     // tick marks' length
constexpr uint32_t kGap = 10;     // between legend rows
constexpr uint32_t kBarSide = 28; // room left of a colour bar for half its first label

}  // namespace

AxisTicks axisTicks(double lo, double hi, uint32_t pixels, const std::function<uint32_t(const std::string&)>& labelExtent,
                    uint32_t minGap) {
  AxisTicks best;
  if (!(hi > lo) || pixels == 0) return best;
  // The most ticks whose labels keep minGap apart; fewer round values otherwise.
  for (int count = 15; count >= 2; --count) {
    const std::vector<double> values = niceTicks(lo, hi, count);
    if (values.empty()) continue;
    const double step = values.size() > 1 ? values[1] - values[0] : (hi - lo);
    AxisTicks ticks;
    ticks.values = values;
    ticks.step = step;
    uint32_t widest = 0;
    for (double v : values) {
      ticks.labels.push_back(tickLabel(v, step));
      widest = std::max(widest, labelExtent(ticks.labels.back()));
    }
    const double spacing = step / (hi - lo) * double(pixels);
    best = std::move(ticks);
    if (values.size() < 2 || spacing >= double(widest + minGap)) break;
  }
  return best;
}

PlotFrame::PlotFrame(std::string title, WorldRect world, uint32_t plotWidth, uint32_t plotHeight, uint32_t textSize)
    : title_(std::move(title)), world_(world), plotWidth_(std::max<uint32_t>(plotWidth, 1)),
      plotHeight_(std::max<uint32_t>(plotHeight, 1)), text_(std::max<uint32_t>(textSize, 1)) {
  const uint32_t size = text_;
  xTicks_ = axisTicks(world_.minX, world_.maxX, plotWidth_, [size](const std::string& s) { return Canvas::textWidth(s, size); },
                      4 * 6 * size);
  yTicks_ = axisTicks(world_.minY, world_.maxY, plotHeight_, [size](const std::string&) { return Canvas::textHeight(size); },
                      3 * 7 * size);
}

void PlotFrame::addSwatches(std::vector<LegendSwatch> swatches) {
  LegendRow row{LegendRow::Kind::Swatches, std::move(swatches), {}, {}, {}};
  rows_.push_back(std::move(row));
}

void PlotFrame::addColourBar(const ColourRange& range, std::string caption, std::function<Rgb(double)> colour) {
  rows_.push_back({LegendRow::Kind::ColourBar, {}, range, std::move(caption), std::move(colour)});
}

void PlotFrame::addNote(std::string line) { rows_.push_back({LegendRow::Kind::Note, {}, {}, std::move(line), {}}); }

uint32_t PlotFrame::barWidth() const { return std::clamp<uint32_t>(plotWidth_, 320, 600); }

uint32_t PlotFrame::rowHeight(const LegendRow& row) const {
  const uint32_t line = Canvas::textHeight(text_);
  switch (row.kind) {
    case LegendRow::Kind::Swatches: return line + 2;
    case LegendRow::Kind::ColourBar: {
      ColourBarStyle style;
      style.textSize = text_;
      return colourBarHeight(style);
    }
    case LegendRow::Kind::Note: return line;
  }
  return line;
}

uint32_t PlotFrame::rowWidth(const LegendRow& row) const {
  const uint32_t swatch = Canvas::textHeight(text_) + 2;
  switch (row.kind) {
    case LegendRow::Kind::Swatches: {
      uint32_t width = 0;
      for (const LegendSwatch& s : row.swatches) width += swatch + 6 + Canvas::textWidth(s.label, text_) + 18;
      return width;
    }
    case LegendRow::Kind::ColourBar:
      return std::max(kBarSide + barWidth() + kBarSide, Canvas::textWidth(row.text, text_) + kBarSide);
    case LegendRow::Kind::Note: return Canvas::textWidth(row.text, text_);
  }
  return 0;
}

FramedPicture PlotFrame::draw(const std::vector<uint8_t>& plotRgb) const {
  const uint32_t line = Canvas::textHeight(text_);
  const double metresPerPixel = (world_.maxX - world_.minX) / double(plotWidth_);
  const std::string xCaption = "x (m)", yCaption = "y (m)";

  // Columns: the y labels, their ticks, the frame, the plot, the frame, room for half an x label.
  uint32_t yLabels = 0;
  for (const std::string& label : yTicks_.labels) yLabels = std::max(yLabels, Canvas::textWidth(label, text_));
  yLabels = std::max(yLabels, Canvas::textWidth(yCaption, text_) / 2);
  const uint32_t plotLeft = kPad + yLabels + 4 + kTick + 1;
  const uint32_t lastXLabel = xTicks_.labels.empty() ? 0 : Canvas::textWidth(xTicks_.labels.back(), text_);
  // Rows: the title, the y caption, the frame, the plot, the frame, ticks, labels, x caption, legend.
  const uint32_t titleTop = kPad, yCaptionTop = titleTop + line + kGap;
  const uint32_t plotTop = yCaptionTop + line + 6 + 1;
  const uint32_t plotBottom = plotTop + plotHeight_;  // the frame's row below the plot
  const uint32_t xLabelTop = plotBottom + 1 + kTick + 3, xCaptionTop = xLabelTop + line + 6;
  uint32_t legendTop = xCaptionTop + line + 2 * kGap;
  uint32_t height = legendTop;
  uint32_t width = plotLeft + plotWidth_ + 1 + std::max(kPad, lastXLabel / 2 + kPad);
  width = std::max(width, 2 * kPad + Canvas::textWidth(title_, text_));
  for (const LegendRow& row : rows_) {
    height += rowHeight(row) + kGap;
    width = std::max(width, 2 * kPad + rowWidth(row));
  }
  height += kPad;

  FramedPicture picture;
  picture.canvas = Canvas(width, height, kWhite);
  Canvas& canvas = picture.canvas;
  canvas.blit(plotRgb, plotWidth_, plotHeight_, plotLeft, plotTop);
  canvas.frame(int64_t(plotLeft) - 1, int64_t(plotTop) - 1, plotWidth_ + 2, plotHeight_ + 2, kBlack);
  canvas.text(kPad, titleTop, title_, text_, kBlack);

  // x: ticks below the frame at the values' pixel edges, labels centred under them.
  for (size_t k = 0; k < xTicks_.values.size(); ++k) {
    const int64_t column = int64_t(plotLeft) + std::llround((xTicks_.values[k] - world_.minX) / metresPerPixel);
    const int64_t x = std::clamp<int64_t>(column, int64_t(plotLeft) - 1, int64_t(plotLeft + plotWidth_));
    canvas.fill(x, plotBottom + 1, 1, kTick, kBlack);
    const int64_t labelWidth = Canvas::textWidth(xTicks_.labels[k], text_);
    canvas.text(x - labelWidth / 2, xLabelTop, xTicks_.labels[k], text_, kBlack);
  }
  canvas.text(int64_t(plotLeft) + int64_t(plotWidth_) / 2 - int64_t(Canvas::textWidth(xCaption, text_)) / 2, xCaptionTop, xCaption,
              text_, kBlack);
  // y: ticks left of the frame, labels right-aligned and centred on them.
  for (size_t k = 0; k < yTicks_.values.size(); ++k) {
    const int64_t row = int64_t(plotBottom) - std::llround((yTicks_.values[k] - world_.minY) / metresPerPixel);
    const int64_t y = std::clamp<int64_t>(row, int64_t(plotTop) - 1, int64_t(plotBottom));
    canvas.fill(int64_t(plotLeft) - 1 - kTick, y, kTick, 1, kBlack);
    const int64_t labelWidth = Canvas::textWidth(yTicks_.labels[k], text_);
    canvas.text(int64_t(plotLeft) - 1 - kTick - 4 - labelWidth, y - int64_t(line) / 2, yTicks_.labels[k], text_, kBlack);
  }
  canvas.text(kPad, yCaptionTop, yCaption, text_, kBlack);

  // The legend rows.
  int64_t y = legendTop;
  const uint32_t swatch = line + 2;
  for (const LegendRow& row : rows_) {
    switch (row.kind) {
      case LegendRow::Kind::Swatches: {
        int64_t x = kPad;
        for (const LegendSwatch& s : row.swatches) {
          canvas.fill(x, y, swatch, swatch, s.colour);
          canvas.frame(x, y, swatch, swatch, kBlack);
          canvas.text(x + swatch + 6, y + 1, s.label, text_, kBlack);
          x += swatch + 6 + Canvas::textWidth(s.label, text_) + 18;
        }
        break;
      }
      case LegendRow::Kind::ColourBar: {
        ColourBarStyle style;
        style.textSize = text_;
        style.width = barWidth();
        style.colour = row.colour;
        drawColourBar(canvas, kBarSide, y, row.range, row.text, style);
        break;
      }
      case LegendRow::Kind::Note: canvas.text(kPad, y, row.text, text_, kBlack); break;
    }
    y += rowHeight(row) + kGap;
  }

  picture.metresPerPixel = metresPerPixel;
  picture.plotLeft = plotLeft, picture.plotTop = plotTop;
  picture.plotWidth = plotWidth_, picture.plotHeight = plotHeight_;
  picture.world = world_;
  picture.originX = world_.minX - double(plotLeft) * metresPerPixel;
  picture.originY = world_.minY - double(height - plotBottom) * metresPerPixel;
  return picture;
}

}  // namespace voxen::detail

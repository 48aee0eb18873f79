#include "voxen/export/colour_bar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace voxen::detail {

Rgb heatColour(double t) {
  t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
  // viridis at 0, 1/4, 1/2, 3/4, 1
  static constexpr double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double f = t * 4.0;
  const int i = std::min(3, int(f));
  const double u = f - i;
  auto channel = [&](int c) { return uint8_t(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u)); };
  return {channel(0), channel(1), channel(2)};
}

ColourRange ColourRange::of(double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi)) || lo > hi) return {0.0, 1.0};
  if (hi > lo && std::isfinite(hi - lo)) return {lo, hi};
  if (!std::isfinite(hi - lo)) return {lo / 2.0, hi / 2.0};  // never: only to keep the span finite
  const double half = lo != 0.0 ? std::abs(lo) * 0.01 : 0.5;
  return {lo - half, hi + half};
}

std::vector<double> niceTicks(double lo, double hi, int maxTicks) {
  std::vector<double> ticks;
  if (!(hi > lo) || maxTicks < 2) return ticks;
  const double rough = (hi - lo) / double(maxTicks - 1);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= rough) {
      step = m * power;
      break;
    }
  for (double k = std::ceil(lo / step); k * step <= hi * (1 + 1e-12) + 1e-300 && ticks.size() < size_t(maxTicks) + 1; k += 1.0)
    ticks.push_back(k * step == 0.0 ? 0.0 : k * step);
  return ticks;
}

std::string tickLabel(double value, double step) {
  char text[40];
  const double magnitude = std::max(std::abs(value), std::abs(step));
  if (magnitude >= 1e6 || (step < 1e-4 && std::abs(value) > 0)) {
    // Enough significant digits to tell neighbouring ticks apart.
    const int digits = std::clamp(int(std::ceil(std::log10(magnitude / step))) + 1, 2, 9);
    std::snprintf(text, sizeof text, "%.*g", digits, value);
  } else {
    const int decimals = step >= 1.0 ? 0 : std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

double niceLength(double limit) {
  if (!(limit > 0.0) || !std::isfinite(limit)) return 1.0;
  const double power = std::pow(10.0, std::floor(std::log10(limit)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * power <= limit) return m * power;
  return power;
}

uint32_t colourBarHeight(const ColourBarStyle& style) {
  const uint32_t line = Canvas::textHeight(style.textSize);
  return style.barHeight + 6 + line + 8 + line;
}

uint32_t drawColourBar(Canvas& canvas, int64_t x, int64_t y, const ColourRange& range, const std::string& caption,
                       const ColourBarStyle& style) {
  const uint32_t w = std::max<uint32_t>(style.width, 2);
  for (uint32_t i = 0; i < w; ++i) {
    const double t = double(i) / double(w - 1);
    canvas.fill(x + i, y, 1, style.barHeight, style.colour(t));
  }
  canvas.frame(x - 1, y - 1, w + 2, style.barHeight + 2, kBlack);
  // As many ticks as their labels leave room for.
  const uint32_t labelTop = y + style.barHeight + 6;
  for (int count = 7; count >= 2; --count) {
    const std::vector<double> ticks = niceTicks(range.lo, range.hi, count);
    if (ticks.empty()) break;
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (range.hi - range.lo);
    std::vector<std::string> labels;
    uint32_t widest = 0;
    for (double t : ticks) {
      labels.push_back(tickLabel(t, step));
      widest = std::max(widest, Canvas::textWidth(labels.back(), style.textSize));
    }
    const double pixelsPerTick = ticks.size() > 1 ? step / (range.hi - range.lo) * double(w - 1) : double(w);
    if (count > 2 && double(widest + 6 * style.textSize) > pixelsPerTick) continue;
    for (size_t k = 0; k < ticks.size(); ++k) {
      const int64_t px = x + std::llround(range.fraction(ticks[k]) * double(w - 1));
      canvas.fill(px, y + style.barHeight, 1, 5, kBlack);
      const int64_t labelWidth = Canvas::textWidth(labels[k], style.textSize);
      // Centred under its tick, moved inwards where the image ends.
      const int64_t lx = std::clamp<int64_t>(px - labelWidth / 2, 0, std::max<int64_t>(0, int64_t(canvas.width()) - labelWidth));
      canvas.text(lx, labelTop, labels[k], style.textSize, kBlack);
    }
    break;
  }
  canvas.text(x, labelTop + Canvas::textHeight(style.textSize) + 8, caption, style.textSize, kBlack);
  return colourBarHeight(style);
}

}  // namespace voxen::detail

#include "voxen/io/clearance_export.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "export_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/io/png_writer.hpp"
#include "voxen/output/atomic_file.hpp"

namespace voxen {

using io_detail::appendLE;
using io_detail::sortedRegions;

namespace {

LayerId requireClearance(const OccupancyMap& map) {
  const std::optional<LayerId> id = findLayer("clearance");
  if (!id || !map.layout().has(*id))
    throw SettingError(SettingError::Kind::Change, "GpuClearance::compute", "GpuClearance::compute or computeClearanceCpu",
                       "the map has no clearance layer (it has " + map.layout().names() + "): compute it with {}");
  return *id;
}

// A 3 x 5 pixel font for the colour bar's labels: digits, '.', 'm' and '-'.
const char* glyph(char c) {
  switch (c) {
    case '0': return "111101101101111";
    case '1': return "010110010010111";
    case '2': return "111001111100111";
    case '3': return "111001111001111";
    case '4': return "101101111001001";
    case '5': return "111100111001111";
    case '6': return "111100111101111";
    case '7': return "111001001001001";
    case '8': return "111101111101111";
    case '9': return "111101111001111";
    case '.': return "000000000000010";
    case 'm': return "000000111111101";
    case '-': return "000000111000000";
    default: return "000000000000000";
  }
}

void drawText(std::vector<uint8_t>& rgb, uint32_t width, uint32_t height, uint32_t x0, uint32_t y0, const std::string& text,
              uint32_t size) {
  for (size_t k = 0; k < text.size(); ++k) {
    const char* g = glyph(text[k]);
    for (uint32_t gy = 0; gy < 5; ++gy)
      for (uint32_t gx = 0; gx < 3; ++gx) {
        if (g[gy * 3 + gx] != '1') continue;
        for (uint32_t sy = 0; sy < size; ++sy)
          for (uint32_t sx = 0; sx < size; ++sx) {
            const uint32_t x = x0 + uint32_t(k) * 4 * size + gx * size + sx, y = y0 + gy * size + sy;
            if (x < width && y < height) std::memset(&rgb[(size_t(y) * width + x) * 3], 0, 3);
          }
      }
  }
}

std::string tickLabel(double metres) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3gm", metres);
  return text;
}

}  // namespace

void clearanceColour(double t, uint8_t rgb[3]) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  // red -> yellow -> green -> cyan -> blue, four equal steps
  const double stops[5][3] = {{220, 30, 30}, {240, 220, 40}, {40, 190, 60}, {40, 200, 220}, {40, 60, 220}};
  const double f = t * 4.0;
  const int i = std::min(3, int(f));
  const double u = f - i;
  for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u));
}

uint64_t exportClearancePly(const OccupancyMap& map, const std::filesystem::path& path, bool doublePrecision) {
  const LayerId layer = requireClearance(map);
  const std::vector<const Region*> regions = sortedRegions(map);
  uint64_t count = 0;
  for (const Region* r : regions)
    for (float v : r->occupancy()) count += isObserved(v);
  const char* coordType = doublePrecision ? "double" : "float";
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  header += "comment written by voxen: observed voxel centres in metres with their clearance (metres to the nearest "
            "obstacle, 0 on obstacles, -1 for none within range)\n";
  header += "element vertex " + std::to_string(count) + "\n";
  for (const char* axis : {"x", "y", "z"}) header += std::string("property ") + coordType + " " + axis + "\n";
  header += "property float clearance\nend_header\n";
  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  io_detail::PlyRecords records(out, doublePrecision);
  for (const Region* r : regions) {
    const auto clearance = r->values<float>(layer);
    for (uint32_t i = 0; i < r->occupancy().size(); ++i) {
      if (!isObserved(r->occupancy()[i])) continue;
      records.centre(map.voxelCentre(map.voxelOf(r->key, i)));
      records.value(clearance[i]);
      records.endRecord();
    }
  }
  records.finish();
  out.commit();
  return count;
}

ClearanceLegend clearanceLegend(double top, uint32_t barTop, uint32_t barBottom, uint32_t labelHeight) {
  ClearanceLegend legend;
  legend.top = top;
  // A round step (1, 2, 2.5 or 5 times a power of ten) that gives 4 to 7 intervals.
  const double rough = top / 5.0, power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10.0 * power;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * power >= rough * 0.8) {
      step = m * power;
      break;
    }
  auto row = [&](double value) {
    return uint32_t(std::lround(double(barBottom) - (double(barBottom) - double(barTop)) * value / top));
  };
  for (int k = 0; double(k) * step <= top * (1.0 + 1e-9); ++k) legend.ticks.push_back(double(k) * step);
  // The top is labelled too, unless a tick is there already; a tick too close below it to
  // leave room for both labels gives way.
  if (top - legend.ticks.back() > top * 1e-9) {
    if (row(legend.ticks.back()) - row(top) < labelHeight + 2 && legend.ticks.size() > 1) legend.ticks.pop_back();
    legend.ticks.push_back(top);
  }
  for (double t : legend.ticks) legend.tickRows.push_back(row(t));
  return legend;
}

ClearanceImage renderClearanceImage(const OccupancyMap& map, int32_t z, uint32_t scale, double range) {
  const LayerId layer = requireClearance(map);
  ClearanceImage image;
  image.slice = renderSlice(map, z, scale);  // the bounds and the counts
  const SliceImage& slice = image.slice;
  const int32_t n = map.regionSize();
  const int32_t regionZ = floorDiv(z, n), localZ = z - regionZ * n;
  // The voxels drawn: observed ones of layer z within the slice's bounds (unobserved voxels
  // are drawn grey whatever their clearance, so they do not set the scale).
  auto forDrawn = [&](auto&& visit) {
    for (const auto& [key, region] : map.regions()) {
      if (key.z != regionZ) continue;
      const auto clearance = region.template values<float>(layer);
      for (int32_t y = 0; y < n; ++y)
        for (int32_t x = 0; x < n; ++x) {
          const size_t i = size_t(x + n * (y + n * localZ));
          if (!isObserved(region.occupancy()[i])) continue;
          const int32_t vx = key.x * n + x, vy = key.y * n + y;
          if (vx < slice.minX || vx > slice.maxX || vy < slice.minY || vy > slice.maxY) continue;
          visit(vx, vy, clearance[i]);
        }
    }
  };
  if (!(range > 0.0)) {  // the largest clearance drawn
    forDrawn([&](int32_t, int32_t, float c) { range = std::max(range, double(c)); });
    if (!(range > 0.0)) range = 1.0;
  }
  // The picture: the slice, then a margin with the colour bar, its ticks and their labels.
  const uint32_t barHeight = std::max<uint32_t>(slice.height, 120), labelSize = 2;
  const uint32_t margin = 16, barWidth = 20, tickWidth = 5, labelWidth = 4 * labelSize * 8;
  const uint32_t width = slice.width + margin + barWidth + tickWidth + 3 + labelWidth;
  const uint32_t height = std::max(slice.height, barHeight) + 12;
  image.width = width, image.height = height;
  std::vector<uint8_t>& rgb = image.rgb;
  rgb.assign(size_t(width) * height * 3, 255);
  for (uint32_t y = 0; y < slice.height; ++y)  // unknown: light grey, so that black obstacles stand out
    std::memset(&rgb[(size_t(y) * width) * 3], 170, size_t(slice.width) * 3);
  forDrawn([&](int32_t vx, int32_t vy, float c) {
    uint8_t colour[3] = {255, 255, 255};
    if (c == 0.0f) colour[0] = colour[1] = colour[2] = 0;
    else if (c > 0.0f) clearanceColour(double(c) / range, colour);
    const uint32_t px = uint32_t(vx - slice.minX) * scale, py = uint32_t(slice.maxY - vy) * scale;
    for (uint32_t sy = 0; sy < scale; ++sy)
      for (uint32_t sx = 0; sx < scale; ++sx) std::memcpy(&rgb[(size_t(py + sy) * width + px + sx) * 3], colour, 3);
  });
  const uint32_t bx = slice.width + margin, top = 6, bottom = top + barHeight - 1;
  for (uint32_t y = top; y <= bottom; ++y) {
    uint8_t colour[3];
    clearanceColour(double(bottom - y) / double(bottom - top), colour);
    for (uint32_t x = bx; x < bx + barWidth; ++x) std::memcpy(&rgb[(size_t(y) * width + x) * 3], colour, 3);
  }
  const uint32_t labelHeight = 5 * labelSize;
  image.legend = clearanceLegend(range, top, bottom, labelHeight);
  image.legend.labelX = bx + barWidth + tickWidth + 3;
  for (size_t k = 0; k < image.legend.ticks.size(); ++k) {
    const uint32_t y = image.legend.tickRows[k];
    for (uint32_t x = bx + barWidth; x < bx + barWidth + tickWidth; ++x) std::memset(&rgb[(size_t(y) * width + x) * 3], 0, 3);
    // The label centred on its tick, kept inside the picture.
    const uint32_t labelTop = std::min(height - labelHeight, y >= labelHeight / 2 ? y - labelHeight / 2 : 0u);
    drawText(rgb, width, height, image.legend.labelX, labelTop, tickLabel(image.legend.ticks[k]), labelSize);
  }
  return image;
}

SliceImage exportClearancePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale,
                              double range, ClearanceLegend* legend) {
  const ClearanceImage image = renderClearanceImage(map, z, scale, range);
  writePng(path, image.width, image.height, image.rgb);
  if (legend) *legend = image.legend;
  return image.slice;
}

}  // namespace voxen

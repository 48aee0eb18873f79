#include "voxen/export/heightmap_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "export_helpers.hpp"
#include "pgm_pair.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/export/colour_bar.hpp"
#include "voxen/export/cost_colour.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

constexpr uint8_t kPgmFree = 254, kPgmOccupied = 0, kPgmUnknown = 205;

void requireLevel(const Heightmap& heightmap, uint32_t level) {
  if (level >= heightmap.levels())
    throw SettingError(SettingError::Kind::Invalid, "level", "the level",
                       "{} must be below the heightmap's level count " + std::to_string(heightmap.levels()) + " (levels 0.." +
                           std::to_string(int64_t(heightmap.levels()) - 1) + "), got " + std::to_string(level));
}

std::string shortest(double v) { return detail::shortestDecimal(v); }

using detail::pgmBytes;

std::string mapYaml(const Heightmap& heightmap, const std::filesystem::path& image, const char* mode, const std::string& description) {
  std::string text = "# written by voxen: " + description + "\n";
  text += "# ROS map_server form: row 0 of the image is the largest y; origin is the lower-left pixel's lower-left corner (metres).\n";
  text += "image: " + image.filename().string() + "\n";
  text += std::string("mode: ") + mode + "\n";
  text += "resolution: " + shortest(heightmap.resolution()) + "\n";
  text += "origin: [" + shortest(heightmap.columnMinX(0)) + ", " + shortest(heightmap.rowMinY(0)) + ", 0.0]\n";
  text += "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n";
  return text;
}

// Both files' temporary copies exist before either target is touched.
void writeMapPair(const std::filesystem::path& yaml, const std::vector<uint8_t>& pgm, const std::string& yamlText) {
  detail::writeImageAndYaml(nav2ImagePath(yaml), pgm, yaml, yamlText);
}

void checkSetting(double value, const char* field, const char* words) {
  if (!std::isfinite(value) || value < 0.0)
    throw SettingError(SettingError::Kind::Invalid, field, words, "{} must be a finite number >= 0, got " + shortest(value));
}

detail::Rgb colourOf(double t) { return detail::heatColour(t); }

}  // namespace

using detail::Rgb;

std::vector<uint8_t> levelCosts(const Heightmap& heightmap, uint32_t level) {
  requireLevel(heightmap, level);
  const uint32_t w = heightmap.width(), h = heightmap.height();
  std::vector<uint8_t> costs(size_t(w) * h, uint8_t(gpu::kCostUnknown));
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t& cost = costs[size_t(y) * w + x];
      if (heightmap.present(level, x, y)) cost = uint8_t(std::min<uint32_t>(heightmap.cell(level, x, y).cost, gpu::kCostUnknown));
      else if (!heightmap.present(0, x, y) && (heightmap.columnFlags(x, y) & gpu::kColumnOccupied)) cost = uint8_t(gpu::kCostLethal);
    }
  return costs;
}

std::filesystem::path nav2ImagePath(const std::filesystem::path& yaml) {
  std::filesystem::path image = yaml;
  if (yaml.extension() == ".pgm") return image += ".pgm";
  return image.replace_extension(".pgm");
}

namespace {

// The trinary values in grid order (row 0 = the lowest y).
std::vector<uint8_t> nav2TrinaryValues(const Heightmap& heightmap, const Nav2MapOptions& options, Nav2MapCounts& counts) {
  std::vector<uint8_t> values = levelCosts(heightmap, options.level);
  for (uint8_t& v : values) {
    const bool unknown = v == gpu::kCostUnknown;
    const bool occupied = v == gpu::kCostLethal || (!unknown && options.maxCost && v > *options.maxCost);
    v = unknown ? kPgmUnknown : occupied ? kPgmOccupied : kPgmFree;
    ++(unknown ? counts.unknown : occupied ? counts.occupied : counts.free);
  }
  return values;
}

}  // namespace

std::vector<uint8_t> nav2TrinaryPixels(const Heightmap& heightmap, const Nav2MapOptions& options, Nav2MapCounts* counts) {
  Nav2MapCounts c;
  const std::vector<uint8_t> values = nav2TrinaryValues(heightmap, options, c);
  if (counts) *counts = c;
  const std::vector<uint8_t> pgm = pgmBytes(values, heightmap.width(), heightmap.height());
  return std::vector<uint8_t>(pgm.end() - std::ptrdiff_t(values.size()), pgm.end());  // the pixels, rows top first
}

Nav2MapCounts exportNav2Map(const Heightmap& heightmap, const std::filesystem::path& yaml, const Nav2MapOptions& options) {
  Nav2MapCounts counts;
  const std::vector<uint8_t> values = nav2TrinaryValues(heightmap, options, counts);
  std::string description = "the traversability of heightmap level " + std::to_string(options.level) +
                            " (free 254, occupied 0: lethal cells";
  if (options.maxCost) description += " and costs above " + std::to_string(*options.maxCost);
  description += ", unknown 205)";
  writeMapPair(yaml, pgmBytes(values, heightmap.width(), heightmap.height()),
               mapYaml(heightmap, nav2ImagePath(yaml), "trinary", description));
  return counts;
}

std::vector<uint8_t> costmapValues(const Heightmap& heightmap, const CostmapOptions& options) {
  checkSetting(options.inflationRadius, "inflationRadius", "the inflation radius");
  checkSetting(options.inscribedRadius, "inscribedRadius", "the inscribed radius");
  checkSetting(options.costScaling, "costScaling", "the cost scaling factor");
  const std::vector<uint8_t> costs = levelCosts(heightmap, options.level);
  std::vector<uint8_t> lethal(costs.size());
  for (size_t i = 0; i < costs.size(); ++i) lethal[i] = costs[i] == gpu::kCostLethal;
  // Without either radius nothing inflates (d = 0 only on lethal cells): no transform to run.
  const bool inflates = options.inflationRadius > 0.0 || options.inscribedRadius > 0.0;
  const std::vector<uint64_t> d2 = inflates ? squaredDistanceTransform2D(options.scheduler, lethal, heightmap.width(), heightmap.height())
                                            : std::vector<uint64_t>(costs.size(), kNoObstacle);
  const double res = heightmap.resolution();
  std::vector<uint8_t> values(costs.size());
  for (size_t i = 0; i < costs.size(); ++i) {
    if (costs[i] == gpu::kCostLethal) values[i] = kCostmapLethal;
    else if (costs[i] == gpu::kCostUnknown) values[i] = kCostmapUnknown;
    else {
      uint32_t value = uint32_t(costs[i]) * 98 / 100;
      if (d2[i] != kNoObstacle) {
        const double d = std::sqrt(double(d2[i])) * res;
        if (d <= options.inscribedRadius) value = kCostmapInscribed;
        else if (d <= options.inflationRadius)
          value = std::max(value, uint32_t(std::lround(98.0 * std::exp(-options.costScaling * (d - options.inscribedRadius)))));
      }
      values[i] = uint8_t(value);
    }
  }
  return values;
}

CostmapCounts exportCostmap(const Heightmap& heightmap, const std::filesystem::path& yaml, const CostmapOptions& options) {
  const std::vector<uint8_t> values = costmapValues(heightmap, options);
  const std::vector<uint8_t> costs = levelCosts(heightmap, options.level);
  CostmapCounts counts;
  counts.cells = values.size();
  for (size_t i = 0; i < values.size(); ++i) {
    counts.lethal += values[i] == kCostmapLethal;
    counts.unknown += values[i] == kCostmapUnknown;
    counts.inflated += values[i] != kCostmapLethal && values[i] != kCostmapUnknown && values[i] > uint32_t(costs[i]) * 98 / 100;
  }
  const std::string description = "a costmap of heightmap level " + std::to_string(options.level) +
                                  " (raw: pixel = OccupancyGrid value; 100 lethal, 99 within " + shortest(options.inscribedRadius) +
                                  " m of a lethal cell, 98 exp(-" + shortest(options.costScaling) + " (d - " +
                                  shortest(options.inscribedRadius) + ")) up to " + shortest(options.inflationRadius) +
                                  " m, the traversal cost x 0.98 elsewhere, 255 unknown)";
  writeMapPair(yaml, pgmBytes(values, heightmap.width(), heightmap.height()),
               mapYaml(heightmap, nav2ImagePath(yaml), "raw", description));
  return counts;
}

namespace {

struct PlotGrid {
  uint32_t scale = 1;
  std::vector<uint8_t> rgb;
};

// The plot's pixels: `colour(x, y)` for each cell, `scale` pixels a side, row 0 = the largest y.
template <class Colour>
PlotGrid plotCells(const Heightmap& heightmap, uint32_t scale, Colour&& colour) {
  PlotGrid plot;
  plot.scale = scale ? scale : autoSliceScale(heightmap.width(), heightmap.height());
  const uint32_t w = heightmap.width(), h = heightmap.height(), s = plot.scale;
  const size_t pw = size_t(w) * s;
  plot.rgb.resize(pw * h * s * 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const Rgb c = colour(x, y);
      const size_t top = size_t(h - 1 - y) * s;
      for (uint32_t dy = 0; dy < s; ++dy)
        for (uint32_t dx = 0; dx < s; ++dx) {
          uint8_t* p = &plot.rgb[((top + dy) * pw + size_t(x) * s + dx) * 3];
          p[0] = c.r, p[1] = c.g, p[2] = c.b;
        }
    }
  return plot;
}

constexpr Rgb kUnknownRgb{kSliceUnknownRgb[0], kSliceUnknownRgb[1], kSliceUnknownRgb[2]};

HeightmapPicture framePicture(const Heightmap& heightmap, const std::filesystem::path& png, const HeightmapPictureOptions& options,
                              const std::string& what, const PlotGrid& plot, HeightmapPicture counts,
                              const std::string& caption, bool costScale) {
  const std::string title = detail::titled(options.name, what + ", level " + std::to_string(options.level));
  const double res = heightmap.resolution();
  const detail::WorldRect world{heightmap.columnMinX(0), heightmap.rowMinY(0), heightmap.columnMinX(0) + heightmap.width() * res,
                                heightmap.rowMinY(0) + heightmap.height() * res};
  detail::PlotFrame frame(title, world, heightmap.width() * plot.scale, heightmap.height() * plot.scale);
  frame.addColourBar(detail::ColourRange{counts.lo, counts.hi}, caption, colourOf);
  frame.addSwatches({{detail::kBlack, std::string(costScale ? "lethal" : "obstacle, no room above") + " (" + std::to_string(counts.lethal) + ")"},
                     {kUnknownRgb, "unknown (" + std::to_string(counts.unknown) + ")"}});
  char note[160];
  std::snprintf(note, sizeof note, "1 pixel = %g m (%u per %g m cell); robot height %g m", res / plot.scale, plot.scale, res,
                heightmap.options().robotHeight);
  frame.addNote(note);
  const detail::FramedPicture picture = frame.draw(plot.rgb);
  counts.yaml = detail::writeMapPicture(png, picture, title);
  return counts;
}

}  // namespace

HeightmapPicture exportHeightPng(const Heightmap& heightmap, const std::filesystem::path& png, const HeightmapPictureOptions& options) {
  const std::vector<uint8_t> costs = levelCosts(heightmap, options.level);
  HeightmapPicture counts;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (uint32_t y = 0; y < heightmap.height(); ++y)
    for (uint32_t x = 0; x < heightmap.width(); ++x)
      if (heightmap.present(options.level, x, y)) {
        const double z = heightmap.heightMetres(options.level, x, y);
        lo = std::min(lo, z), hi = std::max(hi, z);
      }
  if (!(lo <= hi)) throw Error("cannot save PNG to '" + png.string() + "': level " + std::to_string(options.level) + " has no cell");
  const detail::ColourRange range = detail::ColourRange::of(lo, hi);
  counts.lo = range.lo, counts.hi = range.hi;
  const PlotGrid plot = plotCells(heightmap, options.scale, [&](uint32_t x, uint32_t y) {
    if (heightmap.present(options.level, x, y)) {
      ++counts.drawn;
      return colourOf(range.fraction(heightmap.heightMetres(options.level, x, y)));
    }
    const bool lethal = costs[size_t(y) * heightmap.width() + x] == gpu::kCostLethal;
    ++(lethal ? counts.lethal : counts.unknown);
    return lethal ? detail::kBlack : kUnknownRgb;
  });
  return framePicture(heightmap, png, options, "ground height", plot, counts, "height of the surface (m)", false);
}

HeightmapPicture exportCostPng(const Heightmap& heightmap, const std::filesystem::path& png, const HeightmapPictureOptions& options) {
  const std::vector<uint8_t> costs = levelCosts(heightmap, options.level);
  HeightmapPicture counts;
  counts.lo = 0.0, counts.hi = 100.0;
  const PlotGrid plot = plotCells(heightmap, options.scale, [&](uint32_t x, uint32_t y) {
    const uint8_t cost = costs[size_t(y) * heightmap.width() + x];
    ++(cost == gpu::kCostLethal ? counts.lethal : cost == gpu::kCostUnknown ? counts.unknown : counts.drawn);
    return detail::costColour(cost);  // the colours the heightmap mesh and voxen render HM.vxh use too
  });
  return framePicture(heightmap, png, options, "traversability cost", plot, counts, "cost (0 easy .. 100 hardest passable)", true);
}

}  // namespace voxen

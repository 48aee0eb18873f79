#include "voxen/io/map_export.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "voxen/output/atomic_file.hpp"
#include "voxen/io/png_writer.hpp"
#include "colour_bar.hpp"
#include "export_helpers.hpp"
#include "raster_canvas.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

using io_detail::appendLE;
using io_detail::Canvas;
using io_detail::kBlack;
using io_detail::kWhite;
using io_detail::niceLength;
using io_detail::Rgb;
using io_detail::sortedRegions;

namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

}  // namespace

uint64_t exportOccupiedPly(const OccupancyMap& map, const std::filesystem::path& path, const PlyOptions& options) {
  const auto regions = sortedRegions(map);
  const float threshold = map.model().thresholdValue();
  // One test for the header's count and the body (NaN is neither above nor below).
  auto occupied = [threshold](float v) { return isObserved(v) && v >= threshold; };
  uint64_t count = 0;
  for (const Region* r : regions)
    for (float v : r->occupancy()) count += occupied(v);

  const char* coordType = options.doublePrecision ? "double" : "float";
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  header += "comment written by voxen: occupied voxel centres in metres, resolution " + number(map.model().resolution) + " m\n";
  if (options.withValue) header += "comment value: occupancy log-odds\n";
  header += "element vertex " + std::to_string(count) + "\n";
  for (const char* axis : {"x", "y", "z"}) header += std::string("property ") + coordType + " " + axis + "\n";
  if (options.withValue) header += "property float value\n";
  header += "end_header\n";

  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  io_detail::PlyRecords records(out, options.doublePrecision);
  uint64_t written = 0;
  for (const Region* r : regions) {
    for (uint32_t i = 0; i < r->occupancy().size(); ++i) {
      const float v = r->occupancy()[i];
      if (!occupied(v)) continue;
      records.centre(map.voxelCentre(map.voxelOf(r->key, i)));
      if (options.withValue) records.value(v);
      records.endRecord();
      ++written;
    }
  }
  records.finish();
  out.commit();
  return written;
}

SliceImage renderSlice(const OccupancyMap& map, int32_t z, uint32_t scale) {
  if (scale > 1024) throw Error("slice: scale " + std::to_string(scale) + " is not in 1-1024");
  const int32_t n = map.regionSize();
  const int32_t regionZ = floorDiv(z, n);
  const int32_t localZ = z - regionZ * n;
  std::vector<const Region*> layer;
  for (const auto& [key, region] : map.regions())
    if (key.z == regionZ) layer.push_back(&region);

  SliceImage image;
  image.z = z;
  image.scale = scale;
  bool any = false;
  for (const Region* r : layer) {
    for (int32_t y = 0; y < n; ++y) {
      for (int32_t x = 0; x < n; ++x) {
        if (!std::isfinite(r->occupancy()[size_t(x + n * (y + n * localZ))])) continue;
        const int32_t vx = r->key.x * n + x, vy = r->key.y * n + y;
        if (!any) {
          image.minX = image.maxX = vx;
          image.minY = image.maxY = vy;
          any = true;
        }
        image.minX = std::min(image.minX, vx), image.maxX = std::max(image.maxX, vx);
        image.minY = std::min(image.minY, vy), image.maxY = std::max(image.maxY, vy);
      }
    }
  }
  if (!any) {
    // Say where there is something to see.
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (const auto& [key, region] : map.regions())
      for (size_t i = 0; i < region.occupancy().size(); ++i)
        if (std::isfinite(region.occupancy()[i])) {
          const int32_t vz = key.z * n + int32_t(i / size_t(n * n));
          lo = std::min(lo, vz), hi = std::max(hi, vz);
        }
    const double res = map.model().resolution;
    std::string message = "slice: no observed voxel in layer z=" + std::to_string(z) + " (heights " + number(z * res) + ".." +
                          number((z + 1) * res) + " m); ";
    message += lo <= hi ? "observed voxels span layers " + std::to_string(lo) + ".." + std::to_string(hi) + " (heights " +
                              number(lo * res) + ".." + number((hi + 1) * res) + " m)"
                        : std::string("the map has no observed voxel");
    throw Error(message);
  }

  const uint64_t voxelsWide = uint64_t(int64_t(image.maxX) - image.minX + 1), voxelsHigh = uint64_t(int64_t(image.maxY) - image.minY + 1);
  if (scale == 0) scale = autoSliceScale(voxelsWide, voxelsHigh);
  image.scale = scale;
  const uint64_t widthPx = voxelsWide * scale;
  const uint64_t heightPx = voxelsHigh * scale;
  if (widthPx > (1u << 20) || heightPx > (1u << 20) || widthPx * heightPx > (uint64_t(1) << 28))
    throw SettingError(SettingError::Kind::Change, "slice scale", "the pixels per voxel",
                       "slice: " + std::to_string(widthPx) + "x" + std::to_string(heightPx) +
                           " pixels is too large an image (at most 2^20 on a side, 2^28 in all); lower {}",
                       std::to_string(scale));
  image.width = uint32_t(widthPx);
  image.height = uint32_t(heightPx);
  image.rgb.resize(size_t(widthPx * heightPx * 3));
  for (size_t p = 0; p < image.rgb.size(); p += 3) std::memcpy(&image.rgb[p], kSliceUnknownRgb, 3);

  for (const Region* r : layer) {
    for (int32_t y = 0; y < n; ++y) {
      for (int32_t x = 0; x < n; ++x) {
        const float value = r->occupancy()[size_t(x + n * (y + n * localZ))];
        if (value != kUnobserved && !std::isfinite(value)) {
          ++image.nonFinite;
          continue;
        }
        const VoxelClass c = map.classify(value);
        if (c == VoxelClass::Unobserved) continue;
        const uint8_t* colour = c == VoxelClass::Occupied ? kSliceOccupiedRgb : kSliceFreeRgb;
        (c == VoxelClass::Occupied ? image.occupied : image.free)++;
        const size_t column = size_t(r->key.x * n + x - image.minX) * scale;
        const size_t row = size_t(image.maxY - (r->key.y * n + y)) * scale;  // y up: max y is the top row
        for (uint32_t dy = 0; dy < scale; ++dy) {
          uint8_t* p = &image.rgb[((row + dy) * image.width + column) * 3];
          for (uint32_t dx = 0; dx < scale; ++dx, p += 3) std::memcpy(p, colour, 3);
        }
      }
    }
  }
  return image;
}

uint32_t autoSliceScale(uint64_t voxelsWide, uint64_t voxelsHigh) {
  const uint64_t longer = std::max<uint64_t>({voxelsWide, voxelsHigh, 1});
  const uint64_t wanted = (800 + std::max<uint64_t>(voxelsWide, 1) - 1) / std::max<uint64_t>(voxelsWide, 1);
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>({wanted, 32, 4096 / longer})));
}

namespace {

std::string metres(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The slice at the top-left, the legend below it on white.
Canvas sliceWithLegend(const OccupancyMap& map, const SliceImage& image) {
  const uint32_t text = 2, pad = 12, line = Canvas::textHeight(text), gap = 10, swatch = line + 2;
  const double res = map.model().resolution;
  const std::string title = "occupancy at z " + metres(image.z * res) + " to " + metres((image.z + 1) * res) +
                            " m (voxel layer " + std::to_string(image.z) + ")";
  struct Entry {
    Rgb colour;
    std::string label;
  };
  const std::vector<Entry> entries = {
      {{kSliceOccupiedRgb[0], kSliceOccupiedRgb[1], kSliceOccupiedRgb[2]}, "occupied (" + std::to_string(image.occupied) + ")"},
      {{kSliceFreeRgb[0], kSliceFreeRgb[1], kSliceFreeRgb[2]}, "free (" + std::to_string(image.free) + ")"},
      {{kSliceUnknownRgb[0], kSliceUnknownRgb[1], kSliceUnknownRgb[2]}, "unobserved"}};
  uint32_t swatchesWidth = 0;
  for (const Entry& e : entries) swatchesWidth += swatch + 6 + Canvas::textWidth(e.label, text) + 18;
  const std::string invalid =
      image.nonFinite ? std::to_string(image.nonFinite) + " voxels with a NaN or -inf value not drawn" : std::string();
  // The scale bar: a round length near a third of the slice's width (at least 40 pixels).
  const double pixelsPerMetre = double(image.scale) / res;
  const double targetPixels = std::clamp(double(image.width) / 3.0, 40.0, 300.0);
  const double length = niceLength(targetPixels / pixelsPerMetre);
  const uint32_t barPixels = uint32_t(std::max(1.0, std::round(length * pixelsPerMetre)));
  const std::string barLabel = metres(length) + " m";
  const uint32_t legendWidth = 2 * pad + std::max({Canvas::textWidth(title, text), swatchesWidth,
                                                   barPixels + 10 + Canvas::textWidth(barLabel, text),
                                                   Canvas::textWidth(invalid, text)});
  const uint32_t legendHeight = pad + line + gap + swatch + gap + swatch + (invalid.empty() ? 0 : gap + line) + pad;
  Canvas canvas(std::max(image.width, legendWidth), image.height + legendHeight, kWhite);
  canvas.blit(image.rgb, image.width, image.height, 0, 0);
  canvas.fill(0, image.height, canvas.width(), 1, Rgb{128, 128, 128});  // where the slice ends
  int64_t y = image.height + pad;
  canvas.text(pad, y, title, text, kBlack);
  y += line + gap;
  int64_t x = pad;
  for (const Entry& e : entries) {
    canvas.fill(x, y, swatch, swatch, e.colour);
    canvas.frame(x, y, swatch, swatch, kBlack);
    canvas.text(x + swatch + 6, y + 1, e.label, text, kBlack);
    x += swatch + 6 + Canvas::textWidth(e.label, text) + 18;
  }
  y += swatch + gap;
  canvas.fill(pad, y + swatch / 2 - 3, barPixels, 6, kBlack);
  canvas.fill(pad, y, 2, swatch, kBlack);
  canvas.fill(pad + barPixels - 2, y, 2, swatch, kBlack);
  canvas.text(pad + barPixels + 10, y + 1, barLabel, text, kBlack);
  y += swatch;
  if (!invalid.empty()) canvas.text(pad, y + gap, invalid, text, kBlack);
  return canvas;
}

}  // namespace

SliceImage exportSlicePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale) {
  SliceImage image;
  try {
    image = renderSlice(map, z, scale);
  } catch (const SettingError& e) {
    throw e.withContext("cannot save PNG to '" + path.string() + "': ");
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + path.string() + "': " + e.what());
  }
  const Canvas canvas = sliceWithLegend(map, image);
  writePng(path, canvas.width(), canvas.height(), canvas.rgb());
  return image;
}

}  // namespace voxen

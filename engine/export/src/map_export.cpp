#include "voxen/export/map_export.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/export/colour_bar.hpp"
#include "export_helpers.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/export/raster_canvas.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

using detail::appendLE;
using detail::Canvas;
using detail::kBlack;
using detail::kWhite;
using detail::Rgb;
using detail::sortedRegions;

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
  detail::PlyRecords records(out, options.doublePrecision);
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

  bool any = false;
  for (const Region* r : layer)
    for (size_t i = size_t(n) * n * localZ; i < size_t(n) * n * (localZ + 1) && !any; ++i) any = std::isfinite(r->occupancy()[i]);
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
  // The map's extent, not the layer's: every height's picture covers the same ground.
  const detail::VoxelBoundsXY bounds =
      detail::xyBounds(map, [](const Region& r, size_t i) { return std::isfinite(r.occupancy()[i]); });
  SliceImage image;
  image.z = z;
  image.minX = bounds.minX, image.maxX = bounds.maxX, image.minY = bounds.minY, image.maxY = bounds.maxY;

  const uint64_t voxelsWide = bounds.wide(), voxelsHigh = bounds.high();
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
  return uint32_t(std::clamp<uint64_t>((800 + longer - 1) / longer, 1, 32));
}

namespace {

std::string metres(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

Rgb rgbOf(const uint8_t c[3]) { return {c[0], c[1], c[2]}; }

}  // namespace

namespace detail {

std::string layerHeights(const OccupancyMap& map, int32_t z) {
  const double res = map.model().resolution;
  return "z " + metres(z * res) + " to " + metres((z + 1) * res) + " m (voxel layer " + std::to_string(z) + ")";
}

WorldRect worldOf(const OccupancyMap& map, const SliceImage& image) {
  const double res = map.model().resolution;
  return {image.minX * res, image.minY * res, (image.maxX + 1.0) * res, (image.maxY + 1.0) * res};
}

std::string titled(const std::string& mapName, const std::string& what) {
  return mapName.empty() ? what : mapName + ": " + what;
}

std::string pixelNote(const OccupancyMap& map, uint32_t scale, const std::filesystem::path& png) {
  const double res = map.model().resolution;
  const std::filesystem::path yaml = pictureYamlPath(png);
  return "1 pixel = " + metres(res / scale) + " m (" + std::to_string(scale) + " per " + metres(res) + " m voxel)" +
         (yaml.empty() ? std::string() : "; the .yaml beside it places it in the world");
}

void placeSlice(SliceImage& image, const FramedPicture& picture, std::filesystem::path yaml) {
  image.pictureLeft = picture.plotLeft, image.pictureTop = picture.plotTop;
  image.pictureWidth = picture.canvas.width(), image.pictureHeight = picture.canvas.height();
  image.yaml = std::move(yaml);
}

}  // namespace detail

SliceImage exportSlicePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale,
                          const std::string& mapName) {
  SliceImage image;
  try {
    image = renderSlice(map, z, scale);
  } catch (const SettingError& e) {
    throw e.withContext("cannot save PNG to '" + path.string() + "': ");
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + path.string() + "': " + e.what());
  }
  const std::string title = detail::titled(mapName, "occupancy at " + detail::layerHeights(map, z));
  detail::PlotFrame frame(title, detail::worldOf(map, image), image.width, image.height);
  frame.addSwatches({{rgbOf(kSliceOccupiedRgb), "occupied (" + std::to_string(image.occupied) + ")"},
                     {rgbOf(kSliceFreeRgb), "free (" + std::to_string(image.free) + ")"},
                     {rgbOf(kSliceUnknownRgb), "unobserved"}});
  if (image.nonFinite) frame.addNote(std::to_string(image.nonFinite) + " voxels with a NaN or -inf value not drawn");
  frame.addNote(detail::pixelNote(map, image.scale, path));
  const detail::FramedPicture picture = frame.draw(image.rgb);
  detail::placeSlice(image, picture, detail::writeMapPicture(path, picture, title));
  return image;
}

}  // namespace voxen

#include "voxen/export/esdf_slice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "export_helpers.hpp"
#include "pgm_pair.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/export/clearance_export.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/export/heightmap_export.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/decimal_voxel.hpp"

namespace voxen {

namespace {

using detail::shortestDecimal;

[[noreturn]] void refuse(SettingError::Kind kind, const char* field, const char* words, const std::string& text) {
  throw SettingError(kind, std::string("EsdfSliceOptions::") + field, words, text);
}

void checkOptions(const EsdfSliceOptions& o) {
  if (!std::isfinite(o.zMin)) refuse(SettingError::Kind::Invalid, "zMin", "the band's bottom", "{} must be finite, got " + shortestDecimal(o.zMin));
  if (!std::isfinite(o.zMax)) refuse(SettingError::Kind::Invalid, "zMax", "the band's top", "{} must be finite, got " + shortestDecimal(o.zMax));
  if (o.zMin > o.zMax)
    refuse(SettingError::Kind::Invalid, "zMin", "the band's bottom",
           "{} (" + shortestDecimal(o.zMin) + " m) must not lie above the band's top (" + shortestDecimal(o.zMax) + " m)");
  if (!std::isfinite(o.maxDistance) || o.maxDistance <= 0.0)
    refuse(SettingError::Kind::Invalid, "maxDistance", "the distance scale's top",
           "{} must be a finite number > 0, got " + shortestDecimal(o.maxDistance));
}

// The x and y extent of the observed voxels, and their lowest and highest voxel z.
struct ObservedExtent {
  detail::VoxelBoundsXY xy;
  int32_t zLow = INT32_MAX, zHigh = INT32_MIN;
};

ObservedExtent observedExtent(const OccupancyMap& map) {
  ObservedExtent e;
  const int32_t n = map.regionSize();
  for (const auto& [key, region] : map.regions()) {
    const std::span<const float> values = region.occupancy();
    for (size_t i = 0; i < values.size(); ++i) {
      if (!isObserved(values[i])) continue;
      const int32_t x = int32_t(i % size_t(n)), y = int32_t(i / size_t(n) % size_t(n)), z = int32_t(i / (size_t(n) * n));
      e.xy.add(key.x * n + x, key.y * n + y);
      e.zLow = std::min(e.zLow, key.z * n + z), e.zHigh = std::max(e.zHigh, key.z * n + z);
    }
  }
  return e;
}

// "-0.05 to 3.05 m": ten significant digits, so that (k + 0.5) x 0.1 reads as written.
std::string metresRange(int64_t first, int64_t last, double res) {
  char text[80];
  std::snprintf(text, sizeof text, "%.10g to %.10g m", (double(first) + 0.5) * res, (double(last) + 0.5) * res);
  return text;
}

// The band's voxel layers, checked against the map's observed heights.
void bandLayers(const EsdfSliceOptions& o, const ObservedExtent& e, double res, EsdfSlice& slice) {
  const int64_t first = firstVoxelCentredAtOrAbove(o.zMin, res), last = lastVoxelCentredAtOrBelow(o.zMax, res);
  const std::string band = "the band [" + shortestDecimal(o.zMin) + ", " + shortestDecimal(o.zMax) + "] m";
  if (first > last)
    refuse(SettingError::Kind::Change, "zMax", "the band's top",
           band + " holds no voxel centre (centres lie at (k + 0.5) x " + shortestDecimal(res) + " m): raise {}");
  const std::string observed = "the map's observed voxels (centres from " + metresRange(e.zLow, e.zHigh, res) + ")";
  if (last < e.zLow) refuse(SettingError::Kind::Change, "zMax", "the band's top", band + " lies below " + observed + ": raise {}");
  if (first > e.zHigh) refuse(SettingError::Kind::Change, "zMin", "the band's bottom", band + " lies above " + observed + ": lower {}");
  // Within the observed heights from here on: past them there is nothing to find.
  slice.zFirst = int32_t(std::max<int64_t>(first, e.zLow));
  slice.zLast = int32_t(std::min<int64_t>(last, e.zHigh));
}

// The obstacle columns: occupied voxels in the band, and with unknownAsObstacle the columns
// with fewer observed voxels in the band than it has layers.
void markObstacles(const OccupancyMap& map, EsdfSlice& slice) {
  const int32_t n = map.regionSize();
  const float threshold = map.model().thresholdValue();
  const size_t cells = size_t(slice.width) * slice.height;
  slice.obstacle.assign(cells, 0);
  std::vector<uint32_t> seen(slice.options.unknownAsObstacle ? cells : 0, 0);
  for (const auto& [key, region] : map.regions()) {
    const int32_t z0 = std::max(slice.zFirst, key.z * n), z1 = std::min(slice.zLast, key.z * n + n - 1);
    if (z0 > z1) continue;
    const std::span<const float> values = region.occupancy();
    for (int32_t z = z0; z <= z1; ++z)
      for (int32_t ly = 0; ly < n; ++ly) {
        const int64_t y = int64_t(key.y) * n + ly - slice.gridY;
        if (y < 0 || y >= int64_t(slice.height)) continue;
        const float* row = values.data() + size_t(n) * (size_t(ly) + size_t(n) * size_t(z - key.z * n));
        for (int32_t lx = 0; lx < n; ++lx) {
          const int64_t x = int64_t(key.x) * n + lx - slice.gridX;
          if (x < 0 || x >= int64_t(slice.width) || !isObserved(row[lx])) continue;
          const size_t cell = size_t(y) * slice.width + size_t(x);
          if (!seen.empty()) ++seen[cell];
          if (row[lx] >= threshold) slice.obstacle[cell] = 1;
        }
      }
  }
  const uint32_t layers = uint32_t(slice.zLast - slice.zFirst + 1);
  for (size_t i = 0; i < cells; ++i) {
    if (!seen.empty() && !slice.obstacle[i] && seen[i] < layers) slice.obstacle[i] = 1, ++slice.unknownObstacles;
    slice.obstacles += slice.obstacle[i];
  }
}

// One array in NumPy's .npy format (version 1.0, little-endian, C order), shape (rows, columns).
void writeNpy(const std::filesystem::path& path, const char* descr, const void* data, size_t bytes, uint32_t rows, uint32_t columns) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (" << rows << ", " << columns << "), }";
  std::string header = dict.str();
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  detail::AtomicFileWriter out(path, "NumPy array");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t length = uint16_t(header.size());
  out.write(&length, 2);
  out.write(header.data(), header.size());
  out.write(data, bytes);
  out.commit();
}

}  // namespace

EsdfSlice esdfSlice(const OccupancyMap& map, const EsdfSliceOptions& options) {
  checkOptions(options);
  const double res = map.model().resolution;
  const ObservedExtent extent = observedExtent(map);
  if (extent.xy.empty()) throw Error("the map has no observed voxel: nothing to slice");
  EsdfSlice slice;
  slice.options = options;
  slice.options.scheduler = nullptr;
  slice.resolution = res;
  slice.gridX = extent.xy.minX, slice.gridY = extent.xy.minY;
  slice.width = uint32_t(extent.xy.wide()), slice.height = uint32_t(extent.xy.high());
  bandLayers(options, extent, res, slice);
  markObstacles(map, slice);
  slice.squared = squaredDistanceTransform2D(options.scheduler, slice.obstacle, slice.width, slice.height);
  return slice;
}

EsdfSliceFiles esdfSliceFiles(const std::filesystem::path& out) {
  if (out.extension() == ".pgm") return {std::filesystem::path(out).replace_extension(".yaml"), out};
  return {out, nav2ImagePath(out)};
}

std::vector<uint8_t> esdfSlicePixels(const EsdfSlice& slice) {
  std::vector<uint8_t> pixels(slice.squared.size());
  const double top = slice.options.maxDistance;
  for (size_t i = 0; i < pixels.size(); ++i) {
    if (slice.squared[i] == kNoObstacle) pixels[i] = 254;
    else {
      const double d = std::sqrt(double(slice.squared[i])) * slice.resolution;
      pixels[i] = uint8_t(std::lround(254.0 * std::min(d, top) / top));
    }
  }
  return pixels;
}

EsdfSliceFiles exportEsdfSlicePgm(const EsdfSlice& slice, const std::filesystem::path& out) {
  const EsdfSliceFiles files = esdfSliceFiles(out);
  const EsdfSliceOptions& o = slice.options;
  std::string text = "# written by voxen: an ESDF slice, the 2D distance from each cell to the nearest column with an occupied "
                     "voxel centred in z [" + shortestDecimal(o.zMin) + ", " + shortestDecimal(o.zMax) + "] m (voxel layers " +
                     std::to_string(slice.zFirst) + ".." + std::to_string(slice.zLast) + "); unknown voxels count as " +
                     (o.unknownAsObstacle ? "obstacles" : "free") + "\n";
  text += "# pixel = round(254 x min(d, max_distance) / max_distance): 0 on obstacles, 254 at max_distance or farther" +
          std::string(slice.obstacles ? "" : " (the band holds no obstacle: every pixel is 254)") + "\n";
  text += "# ROS map_server form: row 0 of the image is the largest y; origin is the lower-left pixel's lower-left corner (metres).\n";
  text += "image: " + files.image.filename().string() + "\n";
  text += "mode: scale\n";
  text += "resolution: " + shortestDecimal(slice.resolution) + "\n";
  text += "origin: [" + shortestDecimal(slice.originX()) + ", " + shortestDecimal(slice.originY()) + ", 0.0]\n";
  text += "negate: 0\noccupied_thresh: 0.999\nfree_thresh: 0.196\n";
  text += "max_distance: " + shortestDecimal(o.maxDistance) + "\n";
  text += "metres_per_level: " + shortestDecimal(o.maxDistance / 254.0) + "\n";
  text += "z_min: " + shortestDecimal(o.zMin) + "\nz_max: " + shortestDecimal(o.zMax) + "\n";
  text += std::string("unknown_as_obstacle: ") + (o.unknownAsObstacle ? "true" : "false") + "\n";
  detail::writeImageAndYaml(files.image, detail::pgmBytes(esdfSlicePixels(slice), slice.width, slice.height), files.yaml, text);
  return files;
}

EsdfSlicePicture exportEsdfSlicePng(const EsdfSlice& slice, const std::filesystem::path& png, const std::string& mapName,
                                    uint32_t scale) {
  EsdfSlicePicture out;
  out.scale = scale ? scale : autoSliceScale(slice.width, slice.height);
  const uint32_t s = out.scale, w = slice.width, h = slice.height;
  const double top = slice.options.maxDistance;
  std::vector<uint8_t> rgb(size_t(w) * s * h * s * 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      uint8_t c[3] = {0, 0, 0};
      if (!slice.obstacle[i]) clearanceColour(slice.squared[i] == kNoObstacle ? 1.0 : double(slice.metres(i)) / top, c);
      for (uint32_t dy = 0; dy < s; ++dy)
        for (uint32_t dx = 0; dx < s; ++dx)
          std::memcpy(&rgb[((size_t(h - 1 - y) * s + dy) * size_t(w) * s + size_t(x) * s + dx) * 3], c, 3);
    }
  const EsdfSliceOptions& o = slice.options;
  const std::string title = detail::titled(mapName, "ESDF slice, obstacles centred in z " + shortestDecimal(o.zMin) + " to " +
                                                        shortestDecimal(o.zMax) + " m");
  const detail::WorldRect world{slice.originX(), slice.originY(), slice.originX() + w * slice.resolution,
                                slice.originY() + h * slice.resolution};
  detail::PlotFrame frame(title, world, w * s, h * s);
  frame.addColourBar(detail::ColourRange{0.0, top}, "distance to the nearest obstacle column (m; farther: blue)", [](double t) {
    uint8_t c[3];
    clearanceColour(t, c);
    return detail::Rgb{c[0], c[1], c[2]};
  });
  frame.addSwatches({{detail::kBlack, "obstacle column (" + std::to_string(slice.obstacles) + ")"}});
  char note[200];
  std::snprintf(note, sizeof note, "1 pixel = %g m (%u per %g m cell); unknown voxels count as %s", slice.resolution / s, s,
                slice.resolution, o.unknownAsObstacle ? "obstacles" : "free");
  frame.addNote(note);
  out.yaml = detail::writeMapPicture(png, frame.draw(rgb), title);
  return out;
}

std::vector<std::filesystem::path> writeEsdfSliceArrays(const EsdfSlice& slice, const std::string& prefix) {
  std::vector<float> metres(slice.squared.size());
  for (size_t i = 0; i < metres.size(); ++i) metres[i] = slice.metres(i);
  const std::vector<std::filesystem::path> files{prefix + "-distance.npy", prefix + "-obstacle.npy", prefix + ".json"};
  writeNpy(files[0], "<f4", metres.data(), metres.size() * sizeof(float), slice.height, slice.width);
  writeNpy(files[1], "|u1", slice.obstacle.data(), slice.obstacle.size(), slice.height, slice.width);
  const EsdfSliceOptions& o = slice.options;
  const std::string json = "{\"origin_x\": " + shortestDecimal(slice.originX()) + ", \"origin_y\": " + shortestDecimal(slice.originY()) +
                           ", \"resolution\": " + shortestDecimal(slice.resolution) + ", \"width\": " + std::to_string(slice.width) +
                           ", \"height\": " + std::to_string(slice.height) + ", \"z_min\": " + shortestDecimal(o.zMin) +
                           ", \"z_max\": " + shortestDecimal(o.zMax) + ", \"z_first\": " + std::to_string(slice.zFirst) +
                           ", \"z_last\": " + std::to_string(slice.zLast) + ", \"unknown_as_obstacle\": " +
                           (o.unknownAsObstacle ? "true" : "false") + ", \"obstacles\": " + std::to_string(slice.obstacles) + "}\n";
  detail::AtomicFileWriter out(files[2], "JSON");
  out.write(json.data(), json.size());
  out.commit();
  return files;
}

}  // namespace voxen

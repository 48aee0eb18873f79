#include "voxen/io/map_export.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "voxen/map/atomic_file.hpp"
#include "voxen/io/png_writer.hpp"
#include "export_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

using io_detail::appendLE;
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
  uint64_t count = 0;
  for (const Region* r : regions)
    for (float v : r->occupancy()) count += isObserved(v) && v >= threshold;

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
  std::vector<uint8_t> buffer;
  buffer.reserve(1 << 20);
  uint64_t written = 0;
  for (const Region* r : regions) {
    for (uint32_t i = 0; i < r->occupancy().size(); ++i) {
      const float v = r->occupancy()[i];
      if (!isObserved(v) || v < threshold) continue;
      const glm::dvec3 c = map.voxelCentre(map.voxelOf(r->key, i));
      if (options.doublePrecision) {
        appendLE(buffer, c.x), appendLE(buffer, c.y), appendLE(buffer, c.z);
      } else {
        appendLE(buffer, float(c.x)), appendLE(buffer, float(c.y)), appendLE(buffer, float(c.z));
      }
      if (options.withValue) appendLE(buffer, v);
      ++written;
      if (buffer.size() >= (1 << 20) - 64) {
        out.write(buffer.data(), buffer.size());
        buffer.clear();
      }
    }
  }
  out.write(buffer.data(), buffer.size());
  out.commit();
  return written;
}

SliceImage renderSlice(const OccupancyMap& map, int32_t z, uint32_t scale) {
  if (scale == 0 || scale > 1024) throw Error("slice: scale " + std::to_string(scale) + " is not in 1-1024");
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
        if (!isObserved(r->occupancy()[size_t(x + n * (y + n * localZ))])) continue;
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
        if (isObserved(region.occupancy()[i])) {
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

  const uint64_t widthPx = uint64_t(int64_t(image.maxX) - image.minX + 1) * scale;
  const uint64_t heightPx = uint64_t(int64_t(image.maxY) - image.minY + 1) * scale;
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
        const VoxelClass c = map.classify(r->occupancy()[size_t(x + n * (y + n * localZ))]);
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

SliceImage exportSlicePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale) {
  SliceImage image;
  try {
    image = renderSlice(map, z, scale);
  } catch (const SettingError& e) {
    throw e.withContext("cannot save PNG to '" + path.string() + "': ");
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + path.string() + "': " + e.what());
  }
  writePng(path, image.width, image.height, image.rgb);
  return image;
}

}  // namespace voxen

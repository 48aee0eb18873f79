#pragma once
// What the binary exports share: little-endian appends and regions in key order.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/export/map_export.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/map/map.hpp"

namespace voxen::detail {

template <typename T>
void appendLE(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// A map's regions in ascending key order (exports are deterministic whatever the hash order).
inline std::vector<const Region*> sortedRegions(const OccupancyMap& map) {
  std::vector<const Region*> regions;
  regions.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) regions.push_back(&region);
  std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
  return regions;
}

// Inclusive voxel bounds in x and y.
struct VoxelBoundsXY {
  int32_t minX = 0, minY = 0, maxX = -1, maxY = -1;
  bool empty() const { return maxX < minX; }
  uint64_t wide() const { return empty() ? 0 : uint64_t(int64_t(maxX) - minX + 1); }
  uint64_t high() const { return empty() ? 0 : uint64_t(int64_t(maxY) - minY + 1); }
  void add(int32_t x, int32_t y) {
    if (empty()) minX = maxX = x, minY = maxY = y;
    minX = std::min(minX, x), maxX = std::max(maxX, x), minY = std::min(minY, y), maxY = std::max(maxY, y);
  }
};

// The x and y bounds, over every height, of the voxels `holds(region, index)` accepts: the
// extent every picture of the map shares, whatever its height, so that pictures of two
// heights overlay pixel for pixel.
template <class Holds>
VoxelBoundsXY xyBounds(const OccupancyMap& map, Holds&& holds) {
  VoxelBoundsXY bounds;
  const int32_t n = map.regionSize();
  for (const auto& [key, region] : map.regions()) {
    for (size_t i = 0; i < map.voxelsPerRegion(); ++i) {
      if (!holds(region, i)) continue;
      const int32_t x = int32_t(i % size_t(n)), y = int32_t(i / size_t(n) % size_t(n));
      bounds.add(key.x * n + x, key.y * n + y);
    }
  }
  return bounds;
}

// What the map pictures (slices, layer heat maps, clearance) share, defined in map_export.cpp.
// "z 0.3 to 0.4 m (voxel layer 3)"
std::string layerHeights(const OccupancyMap& map, int32_t z);
// The metres a slice's pixels cover.
WorldRect worldOf(const OccupancyMap& map, const SliceImage& image);
// "office.vxm: what", or `what` for an unnamed map.
std::string titled(const std::string& mapName, const std::string& what);
// "1 pixel = 0.025 m (4 per 0.1 m voxel); the .yaml beside it places it in the world"
std::string pixelNote(const OccupancyMap& map, uint32_t scale, const std::filesystem::path& png);
// Records in `image` where the slice lies in the picture written and the YAML's path.
void placeSlice(SliceImage& image, const FramedPicture& picture, std::filesystem::path yaml);

// The body of a binary little-endian PLY of voxel records (a centre, then the record's
// properties): records are gathered and handed to the file in chunks of about 1 MiB, since
// a write call per voxel would cost more than the voxel.
class PlyRecords {
 public:
  PlyRecords(detail::AtomicFileWriter& out, bool doublePrecision) : out_(out), doublePrecision_(doublePrecision) {
    buffer_.reserve(kChunk + 4096);
  }
  // Starts a record with the voxel centre, as float or double x, y, z.
  void centre(const glm::dvec3& c) {
    if (doublePrecision_) appendLE(buffer_, c.x), appendLE(buffer_, c.y), appendLE(buffer_, c.z);
    else appendLE(buffer_, float(c.x)), appendLE(buffer_, float(c.y)), appendLE(buffer_, float(c.z));
  }
  template <typename T>
  void value(T v) {
    appendLE(buffer_, v);
  }
  std::vector<uint8_t>& bytes() { return buffer_; }  // for properties appended by other helpers
  void endRecord() {
    if (buffer_.size() >= kChunk) flush();
  }
  void finish() { flush(); }

 private:
  static constexpr size_t kChunk = size_t(1) << 20;
  void flush() {
    out_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  detail::AtomicFileWriter& out_;
  bool doublePrecision_;
  std::vector<uint8_t> buffer_;
};

}  // namespace voxen::detail

#pragma once
// What the binary exports share: little-endian appends and regions in key order.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/output/atomic_file.hpp"
#include "voxen/map/map.hpp"

namespace voxen::io_detail {

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

}  // namespace voxen::io_detail

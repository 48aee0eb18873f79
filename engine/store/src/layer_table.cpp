#include "layer_table.hpp"

#include <zlib.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "voxen/host/error.hpp"
#include "voxen/map/layer.hpp"

namespace voxen::detail {

namespace {

// In the order of DescriptionFields::set's cases; time_origin last (SQLite stores only).
constexpr const char* kFieldNames[] = {"format_version", "resolution", "region_size", "hit_probability", "miss_probability",
                                       "occupancy_threshold", "clamp_min", "clamp_max", "time_origin"};
constexpr int kTimeOriginField = 8;

std::string exact(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

uint32_t crcOf(const std::string& text) {
  return uint32_t(crc32_z(0, reinterpret_cast<const Bytef*>(text.data()), text.size()));
}

}  // namespace

uint32_t descriptionFieldCrc(const std::string& key, double value) { return crcOf(key + "=" + exact(value)); }

uint32_t layerRowCrc(const StoredLayerRow& row) {
  // Fields separated by a byte no name or number holds; the derived settings last, whole.
  const char sep = '\x1f';
  return crcOf(std::to_string(row.position) + sep + row.name + sep + std::to_string(row.bytesPerVoxel) + sep +
               std::to_string(row.elementBytes) + sep + std::to_string(row.version) + sep + row.derivedSettings);
}

bool DescriptionFields::set(const std::string& key, double v, StoreDescription& d, std::optional<uint32_t> storedCrc) {
  if (storedCrc)
    if (const uint32_t computed = descriptionFieldCrc(key, v); computed != *storedCrc) mismatches_.push_back({key, v, *storedCrc, computed});
  const int count = timeOriginField_ ? kTimeOriginField + 1 : kTimeOriginField;
  int index = 0;
  while (index < count && key != kFieldNames[index]) ++index;
  if (index == count) return false;
  have_[index] = true;
  OccupancyModel& m = d.model;
  switch (index) {
    case 0: d.formatVersion = uint32_t(v); break;
    case 1: m.resolution = v; break;
    case 2: m.regionSize = int32_t(v); break;
    case 3: m.hitProbability = float(v); break;
    case 4: m.missProbability = float(v); break;
    case 5: m.occupancyThreshold = float(v); break;
    case 6: m.clampMin = float(v); break;
    case 7: m.clampMax = float(v); break;
    case 8: d.timeOrigin = v; break;
  }
  return true;
}

void DescriptionFields::check(const StoreDescription& d, const std::function<void(const std::string&)>& fail) const {
  // First: a changed field (the format version among them) would mislead every check below.
  for (const Mismatch& m : mismatches_)
    fail("its description field '" + m.key + "' (value " + exact(m.value) + ") does not match its checksum (stored " + hex32(m.stored) +
         ", computed " + hex32(m.computed) + "): the field was changed after the store was written; the store cannot be trusted");
  const int count = timeOriginField_ ? kTimeOriginField + 1 : kTimeOriginField;
  for (int i = 0; i < count; ++i)
    if (!have_[i]) fail(std::string("its description has no '") + kFieldNames[i] + "' field");
  if (d.formatVersion < kOldestReadableRegionStoreFormat || d.formatVersion > kRegionStoreFormatVersion)
    fail("unsupported store format version " + std::to_string(d.formatVersion) + " (this build reads versions " +
         std::to_string(kOldestReadableRegionStoreFormat) + " to " + std::to_string(kRegionStoreFormatVersion) + ")");
  try {
    d.model.validate();
  } catch (const Error& e) {
    fail(std::string("invalid description field: ") + e.what());
  }
  if (timeOriginField_ && !std::isfinite(d.timeOrigin)) fail("invalid description field: time origin is not finite");
}

void settleLayerTable(const std::vector<StoredLayerRow>& rows, StoreDescription& d,
                      const std::function<void(const std::string&)>& fail) {
  // `fail` throws; the logic_error only keeps a caller's mistake from running on.
  auto failed = [&](const std::string& why) {
    fail(why);
    throw std::logic_error("settleLayerTable: fail() returned");
  };
  MapLayout layout;
  for (size_t r = 0; r < rows.size(); ++r) {
    const StoredLayerRow& row = rows[r];
    const std::string what = "layer " + std::to_string(row.position) + " '" + row.name + "' (version " + std::to_string(row.version) +
                             ", " + std::to_string(row.bytesPerVoxel) + " bytes per voxel)";
    if (row.crc)
      if (const uint32_t computed = layerRowCrc(row); computed != *row.crc)
        failed("its layer table row " + what + " does not match its checksum (stored " + hex32(*row.crc) + ", computed " +
               hex32(computed) + "): the row was changed after the store was written; the store cannot be trusted");
    if (row.position != int64_t(r)) failed(what + ": layer positions must run 0, 1, 2, ...");
    std::optional<LayerId> id = findLayer(row.name);
    if (!id) {
      if (r == 0) failed(what + ": occupancy must be the first layer, and only the first");
      try {
        id = registerOpaqueLayer(row.name, row.bytesPerVoxel, row.elementBytes, row.version);
      } catch (const Error& e) {
        failed(what + ": " + e.what());
      }
    }
    const LayerType& type = layerType(*id);
    if (type.bytesPerVoxel != row.bytesPerVoxel || type.elementBytes != row.elementBytes || type.version != row.version)
      failed(what + " does not match this build's version " + std::to_string(type.version) + " with " +
             std::to_string(type.bytesPerVoxel) + " bytes per voxel");
    if ((r == 0) != (*id == kOccupancyLayer)) failed(what + ": occupancy must be the first layer, and only the first");
    if (r > 0 && layout.has(*id)) failed(what + " is listed twice");
    layout.add(*id);
    d.derivedSettings[*id] = row.derivedSettings;
  }
  if (rows.empty()) failed("its layer table is empty");
  d.layout = layout;
}

}  // namespace voxen::detail

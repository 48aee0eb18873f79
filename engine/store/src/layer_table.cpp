#include "layer_table.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "voxen/host/error.hpp"
#include "voxen/map/layer.hpp"

namespace voxen::store_detail {

namespace {

// In the order of DescriptionFields::set's cases; time_origin last (SQLite stores only).
constexpr const char* kFieldNames[] = {"format_version", "resolution", "region_size", "hit_probability", "miss_probability",
                                       "occupancy_threshold", "clamp_min", "clamp_max", "time_origin"};
constexpr int kTimeOriginField = 8;

}  // namespace

bool DescriptionFields::set(const std::string& key, double v, StoreDescription& d) {
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
  const int count = timeOriginField_ ? kTimeOriginField + 1 : kTimeOriginField;
  for (int i = 0; i < count; ++i)
    if (!have_[i]) fail(std::string("its description has no '") + kFieldNames[i] + "' field");
  if (d.formatVersion != kRegionStoreFormatVersion)
    fail("unsupported store format version " + std::to_string(d.formatVersion) + " (this build reads version " +
         std::to_string(kRegionStoreFormatVersion) + ")");
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

}  // namespace voxen::store_detail

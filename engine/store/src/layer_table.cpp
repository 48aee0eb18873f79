#include "layer_table.hpp"

#include <optional>
#include <stdexcept>

#include "voxen/host/error.hpp"
#include "voxen/map/layer.hpp"

namespace voxen::store_detail {

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

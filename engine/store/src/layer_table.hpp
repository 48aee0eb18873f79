#pragma once
// Private: a store's layer table (SQLite's `layers`, PostgreSQL's `voxen_layers`: the same
// columns) read back into a layout, checked against this build's layer registry, one rule
// for both stores.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "voxen/store/store_types.hpp"

namespace voxen::store_detail {

struct StoredLayerRow {
  int64_t position = 0;
  std::string name;
  uint32_t bytesPerVoxel = 0, elementBytes = 0, version = 0;
  std::string derivedSettings;
};

// Sets d.layout and d.derivedSettings from the rows (in position order). Layers unknown to
// this build are registered as opaque. `fail` throws an Error naming the store; it is called
// for positions that do not run 0, 1, 2..., occupancy anywhere but first, a layer listed
// twice, a version or size this build does not have, or an empty table.
void settleLayerTable(const std::vector<StoredLayerRow>& rows, StoreDescription& d,
                      const std::function<void(const std::string&)>& fail);

}  // namespace voxen::store_detail

#pragma once
// Private: a store's description rows (SQLite's `description` and `layers`, PostgreSQL's
// `voxen_description` and `voxen_layers`: the same keys and columns) read back and checked,
// one rule for both stores.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "voxen/store/store_types.hpp"

namespace voxen::detail {

// The `key, value` rows of the description, one at a time, then checked together.
class DescriptionFields {
 public:
  // `timeOriginField`: whether the store keeps `time_origin` here (SQLite) rather than per
  // session (PostgreSQL).
  explicit DescriptionFields(bool timeOriginField) : timeOriginField_(timeOriginField) {}
  // Whether `key` is a field this build reads; when it is, sets it in `d` from `value`.
  // A key it does not know is a later version's field: the format version decides.
  // `storedCrc`: the field's checksum (descriptionFieldCrc), where the store keeps one; every
  // field with one is verified by check(), known or not.
  bool set(const std::string& key, double value, StoreDescription& d, std::optional<uint32_t> storedCrc = std::nullopt);
  // Calls `fail` (which throws, naming the store) for a field whose checksum does not match,
  // a missing field, a format version this build does not read, an invalid model or a time
  // origin that is not finite.
  void check(const StoreDescription& d, const std::function<void(const std::string&)>& fail) const;

 private:
  struct Mismatch {
    std::string key;
    double value;
    uint32_t stored, computed;
  };
  bool timeOriginField_;
  bool have_[9] = {};
  std::vector<Mismatch> mismatches_;
};

// A description field's checksum: CRC32 of "KEY=VALUE", the value written as %.17g (the
// value exactly, so a field changed in any bit fails it).
uint32_t descriptionFieldCrc(const std::string& key, double value);

struct StoredLayerRow {
  int64_t position = 0;
  std::string name;
  uint32_t bytesPerVoxel = 0, elementBytes = 0, version = 0;
  std::string derivedSettings;
  std::optional<uint32_t> crc;  // the row's checksum (layerRowCrc), where the store keeps one
};

// A layer-table row's checksum: CRC32 over every column but itself (position included, so two
// layers that trade positions fail it).
uint32_t layerRowCrc(const StoredLayerRow& row);

// Sets d.layout and d.derivedSettings from the rows (in position order). Layers unknown to
// this build are registered as opaque. `fail` throws an Error naming the store; it is called
// for a row whose checksum does not match, positions that do not run 0, 1, 2..., occupancy
// anywhere but first, a layer listed twice, a version or size this build does not have, or an
// empty table.
void settleLayerTable(const std::vector<StoredLayerRow>& rows, StoreDescription& d,
                      const std::function<void(const std::string&)>& fail);

}  // namespace voxen::detail

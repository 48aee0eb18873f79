#include "store_schema.hpp"

#include "layer_table.hpp"

#include <cmath>
#include <cstdio>

#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {

// Rows are looked up by key (x, y, z, layer) through the unique index; the blobs live in a
// rowid table because SQLite advises against WITHOUT ROWID for rows of kilobytes. Format 2:
// description and layers rows carry a checksum each (layer_table.hpp), region rows' crc32
// covers their key and layer (row_codec.hpp); format 1 had neither column.
constexpr const char* kSchema = R"sql(
CREATE TABLE description(key TEXT PRIMARY KEY, value NOT NULL, crc32 INTEGER NOT NULL);
CREATE TABLE layers(position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, bytes_per_voxel INTEGER NOT NULL,
                    element_bytes INTEGER NOT NULL, version INTEGER NOT NULL, derived_settings TEXT NOT NULL,
                    crc32 INTEGER NOT NULL);
CREATE TABLE regions(id INTEGER PRIMARY KEY, x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,
                     layer INTEGER NOT NULL REFERENCES layers(position), data BLOB NOT NULL,
                     uncompressed_bytes INTEGER NOT NULL, crc32 INTEGER NOT NULL, UNIQUE (x, y, z, layer));
CREATE TABLE run_state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE writer(id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL);
)sql";

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

void putReal(Statement& put, const char* key, double value) {
  put.bind(1, std::string(key)).bind(2, value).bind(3, int64_t(descriptionFieldCrc(key, value))).run();
}

void putInteger(Statement& put, const char* key, int64_t value) {
  put.bind(1, std::string(key)).bind(2, value).bind(3, int64_t(descriptionFieldCrc(key, double(value)))).run();
}

// Whether `table` has a crc32 column (format 2 on; a format 1 store has none).
bool hasChecksumColumn(Db& db, const char* table) {
  Statement q(db, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = 'crc32'");
  q.bind(1, std::string(table));
  q.step();
  const bool has = q.integer(0) > 0;
  q.reset();
  return has;
}

}  // namespace

bool hasSchema(Db& db) {
  Statement q(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'description'");
  q.step();
  const bool has = q.integer(0) > 0;
  q.reset();
  return has;
}

void createSchema(Db& db, const StoreDescription& d) {
  db.exec(kSchema);
  db.exec("PRAGMA application_id = " + std::to_string(kStoreApplicationId));
  Statement put(db, "INSERT INTO description(key, value, crc32) VALUES (?1, ?2, ?3)");
  putInteger(put, "format_version", int64_t(kRegionStoreFormatVersion));
  const OccupancyModel& m = d.model;
  putReal(put, "resolution", m.resolution);
  putInteger(put, "region_size", int64_t(m.regionSize));
  // Floats widen to doubles exactly, so the model comes back bit for bit.
  putReal(put, "hit_probability", m.hitProbability);
  putReal(put, "miss_probability", m.missProbability);
  putReal(put, "occupancy_threshold", m.occupancyThreshold);
  putReal(put, "clamp_min", m.clampMin);
  putReal(put, "clamp_max", m.clampMax);
  putReal(put, "time_origin", d.timeOrigin);
  Statement layer(db, "INSERT INTO layers VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  int64_t position = 0;
  for (const LayerId id : d.layout.ids()) {
    const LayerType& type = layerType(id);
    const StoredLayerRow row{position++, type.name, type.bytesPerVoxel, type.elementBytes, type.version, d.derivedSettings[id], {}};
    layer.bind(1, row.position).bind(2, row.name).bind(3, int64_t(row.bytesPerVoxel)).bind(4, int64_t(row.elementBytes));
    layer.bind(5, int64_t(row.version)).bind(6, row.derivedSettings).bind(7, int64_t(layerRowCrc(row))).run();
  }
}

void writeTimeOrigin(Db& db, double timeOrigin) {
  Statement put(db, "UPDATE description SET value = ?1, crc32 = ?2 WHERE key = 'time_origin'");
  put.bind(1, timeOrigin).bind(2, int64_t(descriptionFieldCrc("time_origin", timeOrigin))).run();
}

StoreDescription readDescription(Db& db) {
  Statement appId(db, "PRAGMA application_id");
  appId.step();
  const int64_t app = appId.integer(0);
  appId.reset();
  if (app != kStoreApplicationId || !hasSchema(db))
    db.fail("an SQLite database but not a Voxen region store (application_id " + std::to_string(app) + ")");
  StoreDescription d;
  // A format 1 store has no checksum columns: NULL stands in for them.
  const bool checksums = hasChecksumColumn(db, "description") && hasChecksumColumn(db, "layers");
  Statement get(db, checksums ? "SELECT key, value, crc32 FROM description" : "SELECT key, value, NULL FROM description");
  DescriptionFields fields(true);
  while (get.step())
    fields.set(get.text(0), get.real(1), d, get.isNull(2) ? std::nullopt : std::optional<uint32_t>(uint32_t(get.integer(2))));
  fields.check(d, [&db](const std::string& why) { db.fail(why); });
  if (d.formatVersion >= 2 && !checksums)
    db.fail("a store of format version " + std::to_string(d.formatVersion) + " without the checksum columns that format has");

  Statement layers(db, checksums ? "SELECT position, name, bytes_per_voxel, element_bytes, version, derived_settings, crc32 FROM layers ORDER BY position"
                                 : "SELECT position, name, bytes_per_voxel, element_bytes, version, derived_settings, NULL FROM layers ORDER BY position");
  std::vector<StoredLayerRow> rows;
  while (layers.step())
    rows.push_back({layers.integer(0), layers.text(1), uint32_t(layers.integer(2)), uint32_t(layers.integer(3)),
                    uint32_t(layers.integer(4)), layers.text(5),
                    layers.isNull(6) ? std::nullopt : std::optional<uint32_t>(uint32_t(layers.integer(6)))});
  settleLayerTable(rows, d, [&db](const std::string& why) { db.fail(why); });
  return d;
}

void requireSameLayout(const Db& db, const StoreDescription& have, const StoreDescription& want) {
  auto differ = [&](const char* field, const std::string& stored, const std::string& wanted) {
    db.fail("holds a map of " + std::string(field) + " " + stored + ", not " + wanted +
            " as this map has; write it to another store");
  };
  const OccupancyModel &a = have.model, &b = want.model;
  if (a.resolution != b.resolution) differ("resolution", number(a.resolution) + " m", number(b.resolution) + " m");
  if (a.regionSize != b.regionSize) differ("region size", std::to_string(a.regionSize), std::to_string(b.regionSize));
  const auto model = [](const OccupancyModel& m) {
    return "hit " + number(m.hitProbability) + ", miss " + number(m.missProbability) + ", threshold " +
           number(m.occupancyThreshold) + ", clamp [" + number(m.clampMin) + ", " + number(m.clampMax) + "]";
  };
  if (model(a) != model(b)) differ("model", model(a), model(b));
  if (!(have.layout == want.layout)) differ("layers", have.layout.names(), want.layout.names());
}

}  // namespace voxen::detail

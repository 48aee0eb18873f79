#include "pg_schema.hpp"

#include "layer_table.hpp"

#include <cstdio>
#include <cstdlib>

#include "voxen/map/map.hpp"

namespace voxen::detail {

namespace {

// Rows are the SQLite store's (row_codec.hpp): zstd frames, so the server is told not to
// compress them again (STORAGE EXTERNAL). Layer positions index voxen_layers; the fused rows
// use the same positions. Format 2, as the SQLite store: description and layer rows carry a
// checksum each (layer_table.hpp), and row checksums cover their key and layer.
constexpr const char* kSchema = R"sql(
CREATE TABLE voxen_description(key text PRIMARY KEY, value text NOT NULL, crc32 bigint NOT NULL);
CREATE TABLE voxen_layers(position integer PRIMARY KEY, name text NOT NULL UNIQUE, bytes_per_voxel integer NOT NULL,
                          element_bytes integer NOT NULL, version integer NOT NULL, derived_settings text NOT NULL,
                          crc32 bigint NOT NULL);
CREATE TABLE voxen_sessions(name text PRIMARY KEY, writer_pid integer, writer_host text, writer_since timestamptz,
                            last_push timestamptz, pushes bigint NOT NULL DEFAULT 0, time_origin double precision NOT NULL);
CREATE TABLE voxen_run_state(session text NOT NULL REFERENCES voxen_sessions(name), key text NOT NULL, value text NOT NULL,
                             PRIMARY KEY (session, key));
CREATE TABLE voxen_session_rows(session text NOT NULL REFERENCES voxen_sessions(name), x integer NOT NULL, y integer NOT NULL,
                                z integer NOT NULL, layer integer NOT NULL REFERENCES voxen_layers(position), data bytea NOT NULL,
                                uncompressed_bytes bigint NOT NULL, crc32 bigint NOT NULL, PRIMARY KEY (session, x, y, z, layer));
CREATE INDEX voxen_session_rows_region ON voxen_session_rows(x, y, z);
CREATE TABLE voxen_fused_rows(x integer NOT NULL, y integer NOT NULL, z integer NOT NULL,
                              layer integer NOT NULL REFERENCES voxen_layers(position), data bytea NOT NULL,
                              uncompressed_bytes bigint NOT NULL, crc32 bigint NOT NULL, PRIMARY KEY (x, y, z, layer));
ALTER TABLE voxen_session_rows ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE voxen_fused_rows ALTER COLUMN data SET STORAGE EXTERNAL;
)sql";

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string modelText(const OccupancyModel& m) {
  return "hit " + number(m.hitProbability) + ", miss " + number(m.missProbability) + ", threshold " + number(m.occupancyThreshold) +
         ", clamp [" + number(m.clampMin) + ", " + number(m.clampMax) + "]";
}

void requireSame(Pg& db, const StoreDescription& have, const StoreDescription& want) {
  auto differ = [&](const char* field, const std::string& stored, const std::string& wanted) {
    db.fail("holds a map of " + std::string(field) + " " + stored + ", not " + wanted + " as this map has; write it to another store");
  };
  const OccupancyModel &a = have.model, &b = want.model;
  if (a.resolution != b.resolution) differ("resolution", number(a.resolution) + " m", number(b.resolution) + " m");
  if (a.regionSize != b.regionSize) differ("region size", std::to_string(a.regionSize), std::to_string(b.regionSize));
  if (modelText(a) != modelText(b)) differ("model", modelText(a), modelText(b));
  if (!(have.layout == want.layout)) differ("layers", have.layout.names(), want.layout.names());
}

}  // namespace

bool pgHasSchema(Pg& db) {
  return db.query("SELECT to_regclass('voxen_description') IS NOT NULL AND to_regclass('voxen_fused_rows') IS NOT NULL").text(0, 0) ==
         std::string(1, '\1');
}

StoreDescription pgCreateOrCheck(Pg& db, const StoreDescription& d) {
  db.exec("BEGIN");
  try {
    db.query("SELECT pg_advisory_xact_lock($1, 0)", PgParams().add(int64_t(kPgSchemaLockClass)));
    StoreDescription stored;
    if (!pgHasSchema(db)) {
      db.exec(kSchema);
      const OccupancyModel& m = d.model;
      // Floats widen to doubles exactly and %.17g round-trips, so the model comes back bit for bit.
      const std::pair<const char*, std::string> fields[] = {
          {"format_version", std::to_string(kRegionStoreFormatVersion)}, {"resolution", number(m.resolution)},
          {"region_size", std::to_string(m.regionSize)},     {"hit_probability", number(m.hitProbability)},
          {"miss_probability", number(m.missProbability)},   {"occupancy_threshold", number(m.occupancyThreshold)},
          {"clamp_min", number(m.clampMin)},                 {"clamp_max", number(m.clampMax)}};
      for (const auto& [key, value] : fields)
        db.query("INSERT INTO voxen_description(key, value, crc32) VALUES ($1, $2, $3)",
                 PgParams().add(std::string(key)).add(value).add(int64_t(descriptionFieldCrc(key, std::strtod(value.c_str(), nullptr)))));
      int64_t position = 0;
      for (const LayerId id : d.layout.ids()) {
        const LayerType& type = layerType(id);
        const StoredLayerRow row{position++, type.name, type.bytesPerVoxel, type.elementBytes, type.version, d.derivedSettings[id], {}};
        db.query("INSERT INTO voxen_layers VALUES ($1, $2, $3, $4, $5, $6, $7)",
                 PgParams().add(row.position).add(row.name).add(int64_t(row.bytesPerVoxel)).add(int64_t(row.elementBytes))
                     .add(int64_t(row.version)).add(row.derivedSettings).add(int64_t(layerRowCrc(row))));
      }
      stored = d;
      stored.formatVersion = kRegionStoreFormatVersion;
    } else {
      stored = pgReadDescription(db);
      // Format 1 rows' checksums do not cover their keys and layers: rows pushed now would differ.
      if (stored.formatVersion != kRegionStoreFormatVersion)
        db.fail("was written by an earlier Voxen (store format " + std::to_string(stored.formatVersion) + ", whose row checksums do not " +
                "cover keys and layers); this build reads it but writes only format " + std::to_string(kRegionStoreFormatVersion) +
                ": convert its fused map or sessions to map files and push them to a new database");
      requireSame(db, stored, d);
    }
    db.exec("COMMIT");
    stored.timeOrigin = d.timeOrigin;
    return stored;
  } catch (...) {
    try {
      db.exec("ROLLBACK");
    } catch (const Error&) {
    }
    throw;
  }
}

StoreDescription pgReadDescription(Pg& db) {
  if (!pgHasSchema(db)) db.fail("the database holds no Voxen store (no voxen_description table); a writer creates one");
  StoreDescription d;
  // A format 1 store has no checksum columns: NULL stands in for them.
  const bool checksums = db.query("SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND "
                                  "table_name IN ('voxen_description', 'voxen_layers') AND column_name = 'crc32'")
                             .int8(0, 0) == 2;
  const PgResult rows = db.query(checksums ? "SELECT key, value, crc32 FROM voxen_description" : "SELECT key, value, NULL FROM voxen_description");
  DescriptionFields fields(false);  // a session keeps its own time origin
  for (int r = 0; r < rows.rows(); ++r) {
    const std::string key = rows.text(r, 0), text = rows.text(r, 1);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const std::optional<uint32_t> crc = rows.null(r, 2) ? std::nullopt : std::optional<uint32_t>(uint32_t(rows.int8(r, 2)));
    if (fields.set(key, v, d, crc) && (text.empty() || *end))
      db.fail("its description field '" + key + "' is not a number: '" + text + "'");
  }
  fields.check(d, [&db](const std::string& why) { db.fail(why); });
  if (d.formatVersion >= 2 && !checksums)
    db.fail("a store of format version " + std::to_string(d.formatVersion) + " without the checksum columns that format has");
  const PgResult layers = db.query(
      checksums ? "SELECT position, name, bytes_per_voxel, element_bytes, version, derived_settings, crc32 FROM voxen_layers ORDER BY position"
                : "SELECT position, name, bytes_per_voxel, element_bytes, version, derived_settings, NULL FROM voxen_layers ORDER BY position");
  std::vector<StoredLayerRow> table;
  for (int r = 0; r < layers.rows(); ++r)
    table.push_back({layers.int4(r, 0), layers.text(r, 1), uint32_t(layers.int4(r, 2)), uint32_t(layers.int4(r, 3)),
                     uint32_t(layers.int4(r, 4)), layers.text(r, 5),
                     layers.null(r, 6) ? std::nullopt : std::optional<uint32_t>(uint32_t(layers.int8(r, 6)))});
  settleLayerTable(table, d, [&db](const std::string& why) { db.fail(why); });
  return d;
}

}  // namespace voxen::detail

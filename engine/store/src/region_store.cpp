#include "voxen/store/region_store.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "row_codec.hpp"
#include "sqlite_db.hpp"
#include "store_schema.hpp"
#include "store_transaction.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/store/store_file.hpp"

namespace voxen {

using namespace detail;

namespace {

std::string keyText(const RegionKey& k) {
  char text[48];
  std::snprintf(text, sizeof text, "(%d,%d,%d)", k.x, k.y, k.z);
  return text;
}

int32_t clampedFloor(double v) {
  const double f = std::floor(v);
  if (!(f >= double(std::numeric_limits<int32_t>::min()))) return std::numeric_limits<int32_t>::min();
  if (f > double(std::numeric_limits<int32_t>::max())) return std::numeric_limits<int32_t>::max();
  return int32_t(f);
}

constexpr RegionKeyRange kEveryKey{{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}};

void bindRange(Statement& q, const RegionKeyRange& r) {
  q.bind(1, int64_t(r.min.x)).bind(2, int64_t(r.max.x)).bind(3, int64_t(r.min.y)).bind(4, int64_t(r.max.y));
  q.bind(5, int64_t(r.min.z)).bind(6, int64_t(r.max.z));
}

// A read transaction, so that a read of many rows sees one committed state even while a
// writer commits batches.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Db& db) : db_(db) { db.exec("BEGIN"); }
  ~ReadSnapshot() { sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr); }

 private:
  Db& db_;
};

// A store whose SQLite header is damaged is named as one (SQLite would say only "file is not
// a database", and without this check the map file reader would take it for a bad map file).
void refuseDamagedStore(const std::filesystem::path& path) {
  std::string damage;
  if (storeFileKind(path, &damage) == StoreFileKind::DamagedStore)
    throw Error("store '" + path.string() + "': looks like a damaged region store: " + damage +
                "; SQLite cannot open it (restore it from a copy)");
}

}  // namespace

RegionKeyRange regionKeysIntersecting(const OccupancyModel& model, const StoreBox& box) {
  const double edge = model.resolution * model.regionSize;
  return {{clampedFloor(box.min.x / edge), clampedFloor(box.min.y / edge), clampedFloor(box.min.z / edge)},
          {clampedFloor(box.max.x / edge), clampedFloor(box.max.y / edge), clampedFloor(box.max.z / edge)}};
}

StoreDescription StoreDescription::of(const OccupancyMap& map) {
  StoreDescription d;
  d.model = map.model();
  d.layout = map.layout();
  d.timeOrigin = map.timeOrigin();
  for (const LayerId id : map.layout().ids()) d.derivedSettings[id] = map.derivedSettings(id);
  return d;
}

OccupancyMap StoreDescription::emptyMap() const {
  OccupancyMap map(model, layout);
  map.setTimeOrigin(timeOrigin);
  for (const LayerId id : layout.ids()) map.setDerivedSettings(id, derivedSettings[id]);
  return map;
}

class RegionStore::Impl {
 public:
  Impl(const std::filesystem::path& path, Db::Mode mode, const RegionStoreOptions& options)
      : path(path), options(options), db(path, mode) {
    sqlite3_busy_timeout(db.handle(), std::max(0, options.busyTimeoutMs));
  }
  ~Impl() {
    if (writer) unregisterWriter(db);
  }

  void settle(StoreDescription d) {
    description = std::move(d);
    shape = description.emptyMap();
  }

  std::string rowName(const RegionKey& key, LayerId id) const {
    return "region " + keyText(key) + " layer '" + layerType(id).name + "'";
  }

  // Decodes one row into the region's array of that layer.
  void decode(Statement& q, int firstColumn, const RegionKey& key, LayerId id, Region& region) {
    std::vector<std::byte>& array = region.layers[id];
    const LayerType& type = layerType(id);
    array.resize(shape.voxelsPerRegion() * type.bytesPerVoxel);
    // Format 2 rows' checksums cover the key and layer they were written for.
    const RowIdentity identity{key, type.name};
    const std::string why = decodeRow(q.blob(firstColumn), uint64_t(q.integer(firstColumn + 1)), uint32_t(q.integer(firstColumn + 2)),
                                      type.elementBytes, description.formatVersion >= 2 ? &identity : nullptr, array);
    if (!why.empty()) db.fail("corrupt row: " + rowName(key, id) + ": " + why);
    ++rowsRead;
  }

  LayerId layerAt(int64_t position, const RegionKey& key) const {
    const auto& ids = description.layout.ids();
    if (position < 0 || position >= int64_t(ids.size()))
      db.fail("corrupt row: region " + keyText(key) + " has a row for layer position " + std::to_string(position) + ", the store has " +
              std::to_string(ids.size()) + " layers");
    return ids[size_t(position)];
  }

  void checkRegion(const Region& region) const {
    for (const LayerId id : description.layout.ids())
      if (region.layers[id].empty()) db.fail("region " + keyText(region.key) + " has no row for layer '" + layerType(id).name + "'");
    if (!regionKeyInRange(region.key, description.model.regionSize))
      db.fail("region " + keyText(region.key) + ": its key is outside the int32 voxel range");
    if (const std::string problem = impossibleContents(shape, region); !problem.empty())
      db.fail("impossible contents in region " + keyText(region.key) + " (its checksums are valid): " + problem);
  }

  std::filesystem::path path;
  RegionStoreOptions options;
  Db db;
  StoreDescription description;
  OccupancyMap shape;  // no regions: the model and layout that value checks need
  bool writer = false;
  uint64_t rowsRead = 0;
};

RegionStore::RegionStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RegionStore::RegionStore(RegionStore&&) noexcept = default;
RegionStore& RegionStore::operator=(RegionStore&&) noexcept = default;
RegionStore::~RegionStore() = default;

RegionStore RegionStore::openForReading(const std::filesystem::path& path, const RegionStoreOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error("store '" + path.string() + "': no such file");
  refuseDamagedStore(path);
  auto impl = std::make_unique<Impl>(path, Db::Mode::ReadOnly, options);
  impl->settle(readDescription(impl->db));
  return RegionStore(std::move(impl));
}

RegionStore RegionStore::openForWriting(const std::filesystem::path& path, const StoreDescription& description,
                                        const RegionStoreOptions& options) {
  if (options.compressionLevel < 1 || options.compressionLevel > 19)
    throw Error("store '" + path.string() + "': compression level " + std::to_string(options.compressionLevel) + " is not in 1-19");
  refuseDamagedStore(path);
  auto impl = std::make_unique<Impl>(path, Db::Mode::ReadWriteCreate, options);
  Db& db = impl->db;
  // WAL: readers keep reading the last commit while a batch is written, and a commit appends
  // to the log instead of rewriting pages. synchronous=NORMAL syncs the log at checkpoints,
  // not at every commit: a power loss may drop the last commits but never corrupts the
  // store (SQLite's WAL guarantee), and a process crash loses nothing committed.
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA synchronous=NORMAL");
  WriteTransaction t(db);
  if (!hasSchema(db)) {
    Statement tables(db, "SELECT count(*) FROM sqlite_schema");
    tables.step();
    const int64_t count = tables.integer(0);
    tables.reset();
    if (count > 0) db.fail("an SQLite database but not a Voxen region store; refusing to add to it");
    createSchema(db, description);
    StoreDescription created = description;  // perhaps read from an older store: this one is new
    created.formatVersion = kRegionStoreFormatVersion;
    impl->settle(std::move(created));
  } else {
    StoreDescription existing = readDescription(db);
    // Its rows' checksums do not cover their keys and layers: rows written now would differ.
    if (existing.formatVersion != kRegionStoreFormatVersion)
      db.fail("was written by an earlier Voxen (store format " + std::to_string(existing.formatVersion) + ", whose checksums do not " +
              "cover row keys, layers or the description); this build reads it but writes only format " +
              std::to_string(kRegionStoreFormatVersion) + ": convert it to a map file and back (voxen convert OLD.vxs MAP.vxm; " +
              "voxen convert MAP.vxm NEW.vxs), or write to a new store");
    requireSameLayout(db, existing, description);
    impl->settle(std::move(existing));
  }
  registerWriter(db);
  t.commit();
  impl->writer = true;
  return RegionStore(std::move(impl));
}

const std::filesystem::path& RegionStore::path() const { return impl_->path; }
const StoreDescription& RegionStore::description() const { return impl_->description; }
uint64_t RegionStore::rowsRead() const { return impl_->rowsRead; }

void RegionStore::write(const StoreBatch& batch) {
  Impl& s = *impl_;
  if (!s.writer) s.db.fail("opened for reading: cannot write");
  const auto& ids = s.description.layout.ids();
  WriteTransaction t(s.db);
  Statement put(s.db,
                "INSERT INTO regions(x, y, z, layer, data, uncompressed_bytes, crc32) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                "ON CONFLICT(x, y, z, layer) DO UPDATE SET data = excluded.data, uncompressed_bytes = excluded.uncompressed_bytes, "
                "crc32 = excluded.crc32");
  EncodedRow row;
  for (const Region* region : batch.regions) {
    const RegionKey& key = region->key;
    for (uint32_t i = 0; i < kMaxLayers; ++i)
      if (!s.description.layout.has(LayerId(i)) && !region->layers[LayerId(i)].empty())
        s.db.fail("cannot write region " + keyText(key) + ": it holds layer '" + layerType(LayerId(i)).name + "' that the store does not have");
    for (size_t position = 0; position < ids.size(); ++position) {
      const LayerId id = ids[position];
      const LayerType& type = layerType(id);
      const auto& array = region->layers[id];
      if (array.size() != s.shape.voxelsPerRegion() * type.bytesPerVoxel)
        s.db.fail("cannot write " + s.rowName(key, id) + ": it holds " + std::to_string(array.size()) + " bytes, the store's regions have " +
                  std::to_string(s.shape.voxelsPerRegion() * type.bytesPerVoxel));
    }
    s.checkRegion(*region);
    for (size_t position = 0; position < ids.size(); ++position) {
      const LayerId id = ids[position];
      const RowIdentity identity{key, layerType(id).name};
      const std::string why = encodeRow(region->layers[id], layerType(id).elementBytes, s.options.compressionLevel, &identity, row);
      if (!why.empty()) s.db.fail("cannot write " + s.rowName(key, id) + ": " + why);
      put.bind(1, int64_t(key.x)).bind(2, int64_t(key.y)).bind(3, int64_t(key.z)).bind(4, int64_t(position));
      put.bindBlob(5, row.blob).bind(6, int64_t(row.uncompressedBytes)).bind(7, int64_t(row.crc32)).run();
    }
  }
  if (!batch.state.empty()) {
    Statement set(s.db, "INSERT OR REPLACE INTO run_state(key, value) VALUES (?1, ?2)");
    for (const auto& [key, value] : batch.state) set.bind(1, key).bind(2, value).run();
  }
  if (batch.timeOrigin) {
    if (!std::isfinite(*batch.timeOrigin)) s.db.fail("cannot write a time origin that is not finite");
    writeTimeOrigin(s.db, *batch.timeOrigin);
  }
  t.commit();
  if (batch.timeOrigin) {
    s.description.timeOrigin = *batch.timeOrigin;
    s.shape.setTimeOrigin(*batch.timeOrigin);
  }
}

void RegionStore::foldLog() {
  if (!impl_->writer) impl_->db.fail("opened for reading: cannot fold the write-ahead log");
  foldLogIntoFile(impl_->db, impl_->options.busyTimeoutMs);
}

std::optional<Region> RegionStore::readRegion(const RegionKey& key, std::optional<std::vector<LayerId>> layers) {
  Impl& s = *impl_;
  if (layers)
    for (const LayerId id : *layers)
      if (!s.description.layout.has(id))
        s.db.fail("has no layer '" + layerType(id).name + "' (its layers: " + s.description.layout.names() + ")");
  const std::vector<LayerId> wanted = layers ? *layers : s.description.layout.ids();
  ReadSnapshot snapshot(s.db);
  Statement q(s.db, "SELECT layer, data, uncompressed_bytes, crc32 FROM regions WHERE x = ?1 AND y = ?2 AND z = ?3 ORDER BY layer");
  q.bind(1, int64_t(key.x)).bind(2, int64_t(key.y)).bind(3, int64_t(key.z));
  Region region;
  region.key = key;
  bool any = false;
  while (q.step()) {
    any = true;
    const LayerId id = s.layerAt(q.integer(0), key);
    if (std::find(wanted.begin(), wanted.end(), id) != wanted.end()) s.decode(q, 1, key, id, region);
  }
  if (!any) return std::nullopt;
  for (const LayerId id : wanted)
    if (region.layers[id].empty()) s.db.fail("region " + keyText(key) + " has no row for layer '" + layerType(id).name + "'");
  if (!layers) s.checkRegion(region);
  return region;
}

std::vector<RegionKey> RegionStore::keys(const std::optional<StoreBox>& box) {
  Impl& s = *impl_;
  Statement q(s.db,
              "SELECT x, y, z FROM regions WHERE layer = 0 AND x BETWEEN ?1 AND ?2 AND y BETWEEN ?3 AND ?4 AND z BETWEEN ?5 AND ?6 "
              "ORDER BY x, y, z");
  bindRange(q, box ? regionKeysIntersecting(s.description.model, *box) : kEveryKey);
  std::vector<RegionKey> keys;
  while (q.step()) keys.push_back({int32_t(q.integer(0)), int32_t(q.integer(1)), int32_t(q.integer(2))});
  return keys;
}

uint64_t RegionStore::regionCount() {
  Statement q(impl_->db, "SELECT count(*) FROM regions WHERE layer = 0");
  q.step();
  const uint64_t n = uint64_t(q.integer(0));
  q.reset();
  return n;
}

RegionStore::Totals RegionStore::totals() {
  Statement q(impl_->db, "SELECT count(*), coalesce(sum(length(data)), 0), coalesce(sum(uncompressed_bytes), 0) FROM regions");
  q.step();
  Totals t{uint64_t(q.integer(0)), uint64_t(q.integer(1)), uint64_t(q.integer(2))};
  q.reset();
  return t;
}

std::vector<RegionStore::RegionSizes> RegionStore::regionSizes() {
  Statement q(impl_->db, "SELECT x, y, z, sum(length(data)), sum(uncompressed_bytes) FROM regions GROUP BY x, y, z ORDER BY x, y, z");
  std::vector<RegionSizes> sizes;
  while (q.step())
    sizes.push_back({{int32_t(q.integer(0)), int32_t(q.integer(1)), int32_t(q.integer(2))}, uint64_t(q.integer(3)), uint64_t(q.integer(4))});
  return sizes;
}

OccupancyMap RegionStore::readMap(const std::optional<StoreBox>& box) {
  Impl& s = *impl_;
  ReadSnapshot snapshot(s.db);
  OccupancyMap map = s.description.emptyMap();
  Statement q(s.db,
              "SELECT x, y, z, layer, data, uncompressed_bytes, crc32 FROM regions WHERE x BETWEEN ?1 AND ?2 AND y BETWEEN ?3 AND ?4 "
              "AND z BETWEEN ?5 AND ?6 ORDER BY x, y, z, layer");
  bindRange(q, box ? regionKeysIntersecting(s.description.model, *box) : kEveryKey);
  Region* current = nullptr;
  while (q.step()) {
    const RegionKey key{int32_t(q.integer(0)), int32_t(q.integer(1)), int32_t(q.integer(2))};
    if (!current || !(current->key == key)) {
      if (current) s.checkRegion(*current);
      if (!regionKeyInRange(key, s.description.model.regionSize))
        s.db.fail("region " + keyText(key) + ": its key is outside the int32 voxel range");
      current = &map.region(key);
      for (const LayerId id : s.description.layout.ids()) current->layers[id].clear();  // every row must be there
    }
    s.decode(q, 4, key, s.layerAt(q.integer(3), key), *current);
  }
  if (current) s.checkRegion(*current);
  return map;
}

std::optional<std::string> RegionStore::value(const std::string& key) {
  Statement q(impl_->db, "SELECT value FROM run_state WHERE key = ?1");
  q.bind(1, key);
  if (!q.step()) return std::nullopt;
  std::string v = q.text(0);
  q.reset();
  return v;
}

void RegionStore::setValue(const std::string& key, const std::string& value) { write({.state = {{key, value}}}); }

}  // namespace voxen

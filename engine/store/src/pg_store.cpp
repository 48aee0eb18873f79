// PgMapStore: opening a server store, its session lock, and the reads (pg_push.cpp writes).
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "pg_schema.hpp"
#include "pg_store_impl.hpp"
#include "row_codec.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/layer_merge.hpp"

namespace voxen {

using namespace detail;

namespace {

constexpr RegionKeyRange kEveryKey{{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}};

PgParams& addRange(PgParams& p, const RegionKeyRange& r) {
  return p.add(int64_t(r.min.x)).add(int64_t(r.max.x)).add(int64_t(r.min.y)).add(int64_t(r.max.y)).add(int64_t(r.min.z)).add(int64_t(r.max.z));
}

void checkSessionName(const std::string& url, const std::string& session) {
  if (session.size() > 200) throw Error("store '" + redactedStoreName(url) + "': session name longer than 200 characters");
  for (const char c : session)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw Error("store '" + redactedStoreName(url) + "': session name '" + session + "' holds a control character");
}

}  // namespace

std::string pgKeyText(const RegionKey& k) {
  char text[48];
  std::snprintf(text, sizeof text, "(%d,%d,%d)", k.x, k.y, k.z);
  return text;
}

std::string PgMapStore::Impl::rowName(const std::string& rowSession, const RegionKey& key, LayerId id) const {
  return (rowSession.empty() ? std::string("fused map") : "session '" + rowSession + "'") + " region " + pgKeyText(key) + " layer '" +
         layerType(id).name + "'";
}

std::string PgMapStore::Impl::rowName(const RegionKey& key, LayerId id) const { return rowName(session, key, id); }

LayerId PgMapStore::Impl::layerAt(int64_t position, const RegionKey& key) const {
  const auto& ids = stored.layout.ids();
  if (position < 0 || position >= int64_t(ids.size()))
    db.fail("corrupt row: region " + pgKeyText(key) + " has a row for layer position " + std::to_string(position) + ", the store has " +
            std::to_string(ids.size()) + " layers");
  return ids[size_t(position)];
}

void PgMapStore::Impl::decode(const PgResult& rows, int row, int first, const std::string& rowSession, LayerId id, Region& region) {
  std::vector<std::byte>& array = region.layers[id];
  const LayerType& type = layerType(id);
  array.resize(shape.voxelsPerRegion() * type.bytesPerVoxel);
  // Format 2 rows' checksums cover the key and layer they were written for.
  const RowIdentity identity{region.key, type.name};
  const std::string why = decodeRow(rows.bytes(row, first), uint64_t(rows.int8(row, first + 1)), uint32_t(rows.int8(row, first + 2)),
                                    type.elementBytes, stored.formatVersion >= 2 ? &identity : nullptr, array);
  if (!why.empty()) db.fail("corrupt row: " + rowName(rowSession, region.key, id) + ": " + why);
  ++rowsRead;
}

void PgMapStore::Impl::lockSession() {
  const std::string sessionParam = session;
  const PgResult got = db.query("SELECT pg_try_advisory_lock($1, hashtext($2))", PgParams().add(int64_t(kPgSessionLockClass)).add(sessionParam));
  if (got.text(0, 0) != std::string(1, '\1')) {
    const PgResult who = db.query("SELECT writer_pid, writer_host, writer_since::text FROM voxen_sessions WHERE name = $1",
                                  PgParams().add(sessionParam));
    std::string holder = "another process";
    if (who.rows() == 1 && !who.null(0, 0))
      holder = "process " + std::to_string(who.int4(0, 0)) + " on host '" + who.text(0, 1) + "' (since " + who.text(0, 2) + ")";
    db.fail("session '" + session + "' is being written by " + holder +
            "; one writer per session: wait for it to end, or give this writer another session name");
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const PgResult origin = db.query(
      "INSERT INTO voxen_sessions(name, writer_pid, writer_host, writer_since, time_origin) VALUES ($1, $2, $3, now(), $4) "
      "ON CONFLICT (name) DO UPDATE SET writer_pid = excluded.writer_pid, writer_host = excluded.writer_host, writer_since = now() "
      "RETURNING time_origin",
      PgParams().add(sessionParam).add(int64_t(getpid())).add(std::string(host)).add(description.timeOrigin));
  // An existing session keeps its time origin, as an existing SQLite store does.
  description.timeOrigin = origin.float8(0, 0);
}

PgMapStore::PgMapStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PgMapStore::~PgMapStore() {
  if (!impl_->writer) return;
  try {
    impl_->db.query("UPDATE voxen_sessions SET writer_pid = NULL, writer_host = NULL, writer_since = NULL WHERE name = $1",
                    PgParams().add(impl_->session));
  } catch (const Error&) {
    // A lost server: the session lock went with the connection all the same.
  }
}

std::unique_ptr<PgMapStore> PgMapStore::openForWriting(const std::string& url, const StoreDescription& description,
                                                       const std::string& session, const RegionStoreOptions& options) {
  if (session.empty())
    throw Error("store '" + redactedStoreName(url) + "': a writer to a PostgreSQL store needs a session name: the server "
                "keeps each session's rows and their fused map");
  checkSessionName(url, session);
  if (options.compressionLevel < 1 || options.compressionLevel > 19)
    throw Error("store '" + redactedStoreName(url) + "': compression level " + std::to_string(options.compressionLevel) + " is not in 1-19");
  // The fused map is every session's rows merged: a layer with no merge rule cannot be kept.
  for (const LayerId id : description.layout.ids())
    if (id != kClearanceLayer)
      if (const auto problem = mergeRuleProblem(id))
        throw Error("store '" + redactedStoreName(url) + "': cannot keep a fused map of this map's layers: " + *problem +
                    " (write it to an SQLite store instead)");
  auto impl = std::make_unique<Impl>(url, session);
  impl->options = options;
  impl->stored = pgCreateOrCheck(impl->db, description);
  // The fused Gaussians pool every session's with the prior they were made with: one NDT
  // model per store (the first writer's).
  if (description.layout.has(kNdtCovarianceLayer)) {
    const std::string& mine = description.derivedSettings[kNdtCovarianceLayer];
    const std::string& theirs = impl->stored.derivedSettings[kNdtCovarianceLayer];
    if (mine != theirs)
      throw Error("store '" + redactedStoreName(url) + "': its sessions' NDT Gaussians were made with '" + theirs + "', this map's with '" +
                  (mine.empty() ? std::string("(not recorded)") : mine) + "': their fused map cannot pool them");
    impl->ndt = ndtMergeModel(theirs, impl->stored.model.resolution);
  }
  // The fused TSDF is the weighted mean of the sessions': one set of TSDF settings per store
  // (as voxen merge refuses maps with others).
  if (description.layout.has(kTsdfLayer) && description.derivedSettings[kTsdfLayer] != impl->stored.derivedSettings[kTsdfLayer])
    throw Error("store '" + redactedStoreName(url) + "': its sessions' TSDF was made with '" + impl->stored.derivedSettings[kTsdfLayer] +
                "', this map's with '" + description.derivedSettings[kTsdfLayer] + "': their fused map cannot average them");
  impl->description = impl->stored;
  impl->lockSession();
  impl->fusedLayout = MapLayout::of(impl->stored.layout.optionalLayers().remove(kClearanceLayer));
  impl->shape = impl->description.emptyMap();
  impl->writer = true;
  return std::unique_ptr<PgMapStore>(new PgMapStore(std::move(impl)));
}

std::unique_ptr<PgMapStore> PgMapStore::openForReading(const std::string& url, const std::string& session) {
  checkSessionName(url, session);
  auto impl = std::make_unique<Impl>(url, session);
  Pg& db = impl->db;
  // Every read of this reader sees the pushes committed before its first statement, and no
  // push half-way.
  db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  impl->snapshot = true;
  impl->stored = pgReadDescription(db);
  impl->fusedLayout = MapLayout::of(impl->stored.layout.optionalLayers().remove(kClearanceLayer));
  impl->description = impl->stored;
  if (!session.empty()) {
    const PgResult s = db.query("SELECT time_origin FROM voxen_sessions WHERE name = $1", PgParams().add(session));
    if (s.rows() == 0) {
      std::string names;
      const PgResult all = db.query("SELECT name FROM voxen_sessions ORDER BY name");
      for (int r = 0; r < all.rows(); ++r) names += (names.empty() ? "'" : ", '") + all.text(r, 0) + "'";
      throw Error("store '" + redactedStoreName(url) + "': no session '" + session + "' (its sessions: " + (names.empty() ? "none" : names) + ")");
    }
    impl->description.timeOrigin = s.float8(0, 0);
  } else {
    // As voxen merge: the earliest time origin of the sessions that hold regions.
    const PgResult s = db.query(
        "SELECT coalesce(min(time_origin), 0) FROM voxen_sessions s WHERE EXISTS (SELECT 1 FROM voxen_session_rows r WHERE r.session = s.name)");
    impl->description.timeOrigin = s.float8(0, 0);
    impl->description.layout = impl->fusedLayout;
    impl->description.derivedSettings[kClearanceLayer].clear();
  }
  impl->shape = impl->description.emptyMap();
  return std::unique_ptr<PgMapStore>(new PgMapStore(std::move(impl)));
}

std::string PgMapStore::name() const { return impl_->db.name(); }
const StoreDescription& PgMapStore::description() const { return impl_->description; }
uint64_t PgMapStore::rowsRead() const { return impl_->rowsRead; }
uint64_t PgMapStore::retries() const { return impl_->retries; }
const std::string& PgMapStore::session() const { return impl_->session; }

std::optional<Region> PgMapStore::readRegion(const RegionKey& key, std::optional<std::vector<LayerId>> layers) {
  Impl& s = *impl_;
  const MapLayout& layout = s.description.layout;
  if (layers)
    for (const LayerId id : *layers)
      if (!layout.has(id)) s.db.fail("has no layer '" + layerType(id).name + "' (its layers: " + layout.names() + ")");
  const std::vector<LayerId> wanted = layers ? *layers : layout.ids();
  PgParams p;
  p.add(int64_t(key.x)).add(int64_t(key.y)).add(int64_t(key.z));
  std::string sql = "SELECT layer, data, uncompressed_bytes, crc32 FROM ";
  if (s.session.empty()) {
    sql += "voxen_fused_rows WHERE x = $1 AND y = $2 AND z = $3 ORDER BY layer";
  } else {
    sql += "voxen_session_rows WHERE session = $4 AND x = $1 AND y = $2 AND z = $3 ORDER BY layer";
    p.add(s.session);
  }
  const PgResult rows = s.db.query(sql, p);
  if (rows.rows() == 0) return std::nullopt;
  Region region;
  region.key = key;
  for (int r = 0; r < rows.rows(); ++r) {
    const LayerId id = s.layerAt(rows.int4(r, 0), key);
    if (!layout.has(id))
      s.db.fail("corrupt row: " + s.rowName(key, id) + ": the " + (s.session.empty() ? "fused map" : "session") + " has no such layer");
    if (std::find(wanted.begin(), wanted.end(), id) != wanted.end()) s.decode(rows, r, 1, s.session, id, region);
  }
  for (const LayerId id : wanted)
    if (region.layers[id].empty()) s.db.fail(s.rowName(key, id) + ": the row is missing");
  if (!layers) {
    if (!regionKeyInRange(key, s.description.model.regionSize)) s.db.fail("region " + pgKeyText(key) + ": its key is outside the int32 voxel range");
    if (const std::string problem = impossibleContents(s.shape, region); !problem.empty())
      s.db.fail("impossible contents in " + (s.session.empty() ? std::string("fused map") : "session '" + s.session + "'") + " region " +
                pgKeyText(key) + " (its checksums are valid): " + problem);
  }
  return region;
}

std::vector<RegionKey> PgMapStore::keys(const std::optional<StoreBox>& box) {
  Impl& s = *impl_;
  PgParams p;
  addRange(p, box ? regionKeysIntersecting(s.description.model, *box) : kEveryKey);
  std::string sql = "SELECT x, y, z FROM ";
  if (s.session.empty()) {
    sql += "voxen_fused_rows WHERE layer = 0";
  } else {
    sql += "voxen_session_rows WHERE session = $7 AND layer = 0";
    p.add(s.session);
  }
  sql += " AND x BETWEEN $1 AND $2 AND y BETWEEN $3 AND $4 AND z BETWEEN $5 AND $6 ORDER BY x, y, z";
  const PgResult rows = s.db.query(sql, p);
  std::vector<RegionKey> keys;
  keys.reserve(size_t(rows.rows()));
  for (int r = 0; r < rows.rows(); ++r) keys.push_back({rows.int4(r, 0), rows.int4(r, 1), rows.int4(r, 2)});
  return keys;
}

std::vector<std::string> PgMapStore::sessions() {
  const PgResult rows = impl_->db.query("SELECT name FROM voxen_sessions ORDER BY name");
  std::vector<std::string> names;
  for (int r = 0; r < rows.rows(); ++r) names.push_back(rows.text(r, 0));
  return names;
}

std::vector<PgMapStore::RegionSizes> PgMapStore::regionSizes() {
  Impl& s = *impl_;
  PgParams p;
  std::string sql = "SELECT x, y, z, sum(length(data))::bigint, sum(uncompressed_bytes)::bigint FROM ";
  if (s.session.empty()) {
    sql += "voxen_fused_rows";
  } else {
    sql += "voxen_session_rows WHERE session = $1";
    p.add(s.session);
  }
  const PgResult rows = s.db.query(sql + " GROUP BY x, y, z ORDER BY x, y, z", p);
  std::vector<RegionSizes> sizes;
  for (int r = 0; r < rows.rows(); ++r)
    sizes.push_back({{rows.int4(r, 0), rows.int4(r, 1), rows.int4(r, 2)}, uint64_t(rows.int8(r, 3)), uint64_t(rows.int8(r, 4))});
  return sizes;
}

std::optional<std::string> PgMapStore::value(const std::string& key) {
  Impl& s = *impl_;
  if (s.session.empty()) return std::nullopt;  // run state belongs to a session
  const PgResult rows =
      s.db.query("SELECT value FROM voxen_run_state WHERE session = $1 AND key = $2", PgParams().add(s.session).add(key));
  if (rows.rows() == 0) return std::nullopt;
  return rows.text(0, 0);
}

void PgMapStore::setValue(const std::string& key, const std::string& value) { write({.state = {{key, value}}}); }

}  // namespace voxen

// PgMapStore::write: one push, one transaction (docs/architecture.md, "PostgreSQL store").
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "pg_store_impl.hpp"
#include "row_codec.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/layer_merge.hpp"

namespace voxen {

using namespace detail;

namespace {

constexpr int kMaxConflictRetries = 8;

struct EncodedRegion {
  RegionKey key;
  std::vector<EncodedRow> rows;  // per layer position of the store
};

// The region's lock: one bigint (21 bits per axis). Two regions that share a lock key only
// wait for each other; the lock never decides what is read.
int64_t regionLockKey(const RegionKey& k) {
  const auto bits = [](int32_t v) { return int64_t(uint32_t(v) & 0x1FFFFFu); };
  return (bits(k.x) << 42) | (bits(k.y) << 21) | bits(k.z);
}

// One attempt at the push; the caller holds the transaction.
void pushOnce(PgMapStore::Impl& s, const std::vector<EncodedRegion>& regions, const StoreBatch& batch, int compressionLevel) {
  Pg& db = s.db;
  db.query("UPDATE voxen_sessions SET last_push = now(), pushes = pushes + 1, time_origin = coalesce($2::double precision, time_origin) "
           "WHERE name = $1",
           batch.timeOrigin ? PgParams().add(s.session).add(*batch.timeOrigin) : PgParams().add(s.session).addNull());
  const auto& ids = s.stored.layout.ids();
  for (const EncodedRegion& region : regions)
    for (size_t position = 0; position < ids.size(); ++position) {
      const EncodedRow& row = region.rows[position];
      db.query("INSERT INTO voxen_session_rows(session, x, y, z, layer, data, uncompressed_bytes, crc32) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
               "ON CONFLICT (session, x, y, z, layer) DO UPDATE SET data = excluded.data, uncompressed_bytes = excluded.uncompressed_bytes, "
               "crc32 = excluded.crc32",
               PgParams().add(s.session).add(int64_t(region.key.x)).add(int64_t(region.key.y)).add(int64_t(region.key.z))
                   .add(int64_t(position)).addBytes(row.blob).add(int64_t(row.uncompressedBytes)).add(int64_t(row.crc32)));
    }
  for (const auto& [key, value] : batch.state)
    db.query("INSERT INTO voxen_run_state(session, key, value) VALUES ($1, $2, $3) ON CONFLICT (session, key) DO UPDATE SET value = excluded.value",
             PgParams().add(s.session).add(key).add(value));

  // The fused regions, in key order (regions is sorted) so that two pushes take their region
  // locks in the same order and never deadlock on them.
  std::string positions = "{";
  for (size_t position = 0; position < ids.size(); ++position)
    if (s.fusedLayout.has(ids[position])) {
      // Appended piece by piece: `"," + std::to_string(...)` trips g++ 12's false -Wrestrict.
      if (positions.size() > 1) positions += ',';
      positions += std::to_string(position);
    }
  positions += "}";
  EncodedRow out;
  for (const EncodedRegion& region : regions) {
    const RegionKey& key = region.key;
    db.query("SELECT pg_advisory_xact_lock($1)", PgParams().add(regionLockKey(key)));
    // A statement of its own after the lock: under READ COMMITTED its snapshot is taken now,
    // so it sees every push that fused this region before us.
    const PgResult rows = db.query(
        "SELECT session, layer, data, uncompressed_bytes, crc32 FROM voxen_session_rows WHERE x = $1 AND y = $2 AND z = $3 "
        "AND layer = ANY($4::integer[]) ORDER BY session, layer",
        PgParams().add(int64_t(key.x)).add(int64_t(key.y)).add(int64_t(key.z)).add(positions));
    std::vector<Region> held;
    std::string current;
    for (int r = 0; r < rows.rows(); ++r) {
      const std::string rowSession = rows.text(r, 0);
      if (held.empty() || rowSession != current) {
        held.emplace_back().key = key;
        current = rowSession;
      }
      s.decode(rows, r, 2, rowSession, s.layerAt(rows.int4(r, 1), key), held.back());
    }
    std::vector<const Region*> inputs;
    for (const Region& h : held) {
      for (const LayerId id : s.fusedLayout.ids())
        if (h.layers[id].empty()) s.db.fail("session rows of region " + pgKeyText(key) + " lack layer '" + layerType(id).name + "'");
      inputs.push_back(&h);
    }
    const Region merged = mergeRegions(s.fusedLayout, s.stored.model, inputs, s.ndt);
    for (size_t position = 0; position < ids.size(); ++position) {
      const LayerId id = ids[position];
      if (!s.fusedLayout.has(id)) continue;
      const RowIdentity identity{key, layerType(id).name};
      if (const std::string why = encodeRow(merged.layers[id], layerType(id).elementBytes, compressionLevel, &identity, out); !why.empty())
        s.db.fail("cannot write " + s.rowName("", key, id) + ": " + why);
      db.query("INSERT INTO voxen_fused_rows(x, y, z, layer, data, uncompressed_bytes, crc32) VALUES ($1, $2, $3, $4, $5, $6, $7) "
               "ON CONFLICT (x, y, z, layer) DO UPDATE SET data = excluded.data, uncompressed_bytes = excluded.uncompressed_bytes, "
               "crc32 = excluded.crc32",
               PgParams().add(int64_t(key.x)).add(int64_t(key.y)).add(int64_t(key.z)).add(int64_t(position)).addBytes(out.blob)
                   .add(int64_t(out.uncompressedBytes)).add(int64_t(out.crc32)));
    }
  }
}

// A server that went away may be restarting: a few tries over about 5 s.
void reconnect(PgMapStore::Impl& s) {
  for (int attempt = 0;; ++attempt) {
    try {
      s.db.reconnect();
      s.lockSession();
      return;
    } catch (const PgError& e) {
      if (!e.connectionLost() || attempt == 9) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

}  // namespace

void PgMapStore::write(const StoreBatch& batch) {
  Impl& s = *impl_;
  if (!s.writer) s.db.fail("opened for reading: cannot write");
  if (batch.timeOrigin && !std::isfinite(*batch.timeOrigin)) s.db.fail("cannot write a time origin that is not finite");
  const auto& ids = s.stored.layout.ids();
  // Checked and compressed once, before the transaction, so that a retry only resends.
  std::vector<EncodedRegion> regions;
  regions.reserve(batch.regions.size());
  for (const Region* region : batch.regions) {
    const RegionKey& key = region->key;
    for (uint32_t i = 0; i < kMaxLayers; ++i)
      if (!s.stored.layout.has(LayerId(i)) && !region->layers[LayerId(i)].empty())
        s.db.fail("cannot write region " + pgKeyText(key) + ": it holds layer '" + layerType(LayerId(i)).name + "' that the store does not have");
    for (const LayerId id : ids) {
      const uint64_t expected = s.shape.voxelsPerRegion() * layerType(id).bytesPerVoxel;
      if (region->layers[id].size() != expected)
        s.db.fail("cannot write " + s.rowName(key, id) + ": it holds " + std::to_string(region->layers[id].size()) +
                  " bytes, the store's regions have " + std::to_string(expected));
    }
    if (!regionKeyInRange(key, s.stored.model.regionSize)) s.db.fail("cannot write region " + pgKeyText(key) + ": its key is outside the int32 voxel range");
    if (const std::string problem = impossibleContents(s.shape, *region); !problem.empty())
      s.db.fail("cannot write region " + pgKeyText(key) + ": impossible contents: " + problem);
    EncodedRegion& e = regions.emplace_back();
    e.key = key;
    e.rows.resize(ids.size());
    for (size_t position = 0; position < ids.size(); ++position) {
      const RowIdentity identity{key, layerType(ids[position]).name};
      if (const std::string why = encodeRow(region->layers[ids[position]], layerType(ids[position]).elementBytes, s.options.compressionLevel,
                                            &identity, e.rows[position]);
          !why.empty())
        s.db.fail("cannot write " + s.rowName(key, ids[position]) + ": " + why);
    }
  }
  std::sort(regions.begin(), regions.end(), [](const EncodedRegion& a, const EncodedRegion& b) { return a.key < b.key; });
  for (size_t i = 1; i < regions.size(); ++i)
    if (regions[i].key == regions[i - 1].key) s.db.fail("cannot write region " + pgKeyText(regions[i].key) + " twice in one batch");

  std::minstd_rand jitter{uint32_t(getpid())};
  int conflicts = 0;
  bool reconnected = false;
  for (;;) {
    try {
      s.db.exec("BEGIN");
      pushOnce(s, regions, batch, s.options.compressionLevel);
      s.db.exec("COMMIT");
      break;
    } catch (const PgError& e) {
      if (!e.connectionLost()) {
        try {
          s.db.exec("ROLLBACK");
        } catch (const Error&) {
        }
      }
      // Rows are a function of what was pushed and the fused rows of the session rows, so a
      // push whose COMMIT was lost in flight may simply be sent again.
      if (e.retryable() && conflicts < kMaxConflictRetries) {
        ++conflicts;
        ++s.retries;
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % (10 << conflicts)));
        continue;
      }
      if (e.connectionLost() && !reconnected) {
        reconnected = true;
        ++s.retries;
        try {
          reconnect(s);
        } catch (const PgError& again) {
          throw Error(std::string(e.what()) + "; reconnecting failed too: " + again.what() +
                      " (the push committed whole or not at all; the server holds the last push it committed)");
        }
        continue;
      }
      if (e.connectionLost()) throw Error(std::string(e.what()) + " (the push was retried once after reconnecting; it committed whole or not at all)");
      throw;
    }
  }
  if (batch.timeOrigin) {
    s.description.timeOrigin = *batch.timeOrigin;
    s.shape.setTimeOrigin(*batch.timeOrigin);
  }
}

}  // namespace voxen

#pragma once
// A map store on a PostgreSQL server, shared by several machines (docs/architecture.md,
// "PostgreSQL store"). Selected by a target "postgresql://..." (map_store.hpp); available
// when Voxen was built with libpq (VOXEN_HAVE_POSTGRES defined), else such a target is refused
// and this class, declared all the same, has no definition to link.
//
// - Every writer pushes under a session name (one robot or run): the server keeps each
//   session's latest rows, and a fused map: per region, the merge of every session's rows of
//   it with the rules of voxen/map/layer_merge.hpp, so that the fused map equals `voxen merge`
//   of the sessions' maps bit for bit. Clearance, derived from occupancy, is kept per session
//   but not fused (as `voxen merge` drops it); a layer without a merge rule (NDT) cannot be
//   written to a server store at all.
// - write() is one push in one transaction: the session's rows and run state, then for every
//   region of the batch, in key order, a transaction-scoped advisory lock on the region, a
//   read of every session's rows of it and the upsert of its fused rows. A deadlock or
//   serialization failure retries the push; a lost connection is reopened and the push
//   retried once. Readers never see half a push.
// - One live writer per session: a writer holds a session-scoped advisory lock for as long as
//   its connection lives, and a second one is refused naming the first (pid and host).
// - Readers read the fused map (session empty) or one session's rows, all reads of one reader
//   from one snapshot.
//
// Every error is a voxen::Error naming the server's URL (never its password).
#include <memory>
#include <string>
#include <vector>

#include "voxen/store/map_store.hpp"

namespace voxen {

class PgMapStore : public MapStore {
 public:
  static std::unique_ptr<PgMapStore> openForWriting(const std::string& url, const StoreDescription& description,
                                                    const std::string& session, const RegionStoreOptions& options = {});
  // session empty: the fused map.
  static std::unique_ptr<PgMapStore> openForReading(const std::string& url, const std::string& session = {});
  ~PgMapStore() override;

  std::string name() const override;
  const StoreDescription& description() const override;
  void write(const StoreBatch& batch) override;
  std::optional<Region> readRegion(const RegionKey& key, std::optional<std::vector<LayerId>> layers = std::nullopt) override;
  std::vector<RegionKey> keys(const std::optional<StoreBox>& box = std::nullopt) override;
  std::optional<std::string> value(const std::string& key) override;
  void setValue(const std::string& key, const std::string& value) override;
  uint64_t rowsRead() const override;

  // The session read or written ("" for the fused map).
  const std::string& session() const;
  // Every session's name, in order.
  std::vector<std::string> sessions();
  // Per region, in key order: the bytes of its rows, compressed and not (for `voxen info`).
  struct RegionSizes {
    RegionKey key;
    uint64_t compressedBytes = 0, uncompressedBytes = 0;
  };
  std::vector<RegionSizes> regionSizes();
  // Pushes that were retried (after a deadlock, a serialization failure or a lost connection).
  uint64_t retries() const;

  class Impl;

 private:
  explicit PgMapStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen

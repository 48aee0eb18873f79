#pragma once
// Private: what PgMapStore's parts share (pg_store.cpp opens and reads, pg_push.cpp writes).
#include <optional>
#include <string>

#include "pg_conn.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/store/pg_store.hpp"

namespace voxen {

class PgMapStore::Impl {
 public:
  Impl(const std::string& url, std::string session) : db(url), session(std::move(session)) {}

  // "region (x,y,z) layer 'name'" with the session, or "fused", in front.
  std::string rowName(const RegionKey& key, LayerId id) const;
  std::string rowName(const std::string& rowSession, const RegionKey& key, LayerId id) const;
  // The layer at a row's position in the store's layer table (an Error when there is none).
  LayerId layerAt(int64_t position, const RegionKey& key) const;
  // Decodes one row (data, uncompressed_bytes, crc32 at columns first..first+2) into `region`.
  void decode(const detail::PgResult& rows, int row, int first, const std::string& rowSession, LayerId id, Region& region);
  // A writer's session lock, taken again after a reconnect; throws naming the holder.
  void lockSession();

  detail::Pg db;
  std::string session;          // "" for the fused map
  StoreDescription stored;      // the store's: every layer a session holds
  std::optional<NdtMergeModel> ndt;  // a store of NDT maps: the model its Gaussians pool with
  StoreDescription description; // what this store reads or writes (the fused map: merged layers)
  MapLayout fusedLayout;        // the layers kept fused
  OccupancyMap shape;           // no regions: the model and layout that value checks need
  RegionStoreOptions options;
  bool writer = false;
  bool snapshot = false;        // a reader's read-only transaction is open
  uint64_t rowsRead = 0, retries = 0;
};

std::string pgKeyText(const RegionKey& k);

}  // namespace voxen

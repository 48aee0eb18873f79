#pragma once
// What a mapping run and the reading commands need of a store, whatever keeps it: an SQLite
// file (RegionStore, voxen/store/region_store.hpp) on one machine, or a PostgreSQL server
// shared by several machines (voxen/store/pg_store.hpp), where each writer pushes under a
// session name and readers read the sessions' fused map or one session.
//
// A store is named by a target string: a path names an SQLite file, a URL starting with
// "postgresql://" or "postgres://" names a server. openMapStoreForWriting /
// openMapStoreForReading pick the implementation from it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/store/store_name.hpp"
#include "voxen/store/store_types.hpp"

namespace voxen {

class MapStore {
 public:
  virtual ~MapStore() = default;
  // The file or the URL (a URL without its password), for messages.
  virtual std::string name() const = 0;
  virtual const StoreDescription& description() const = 0;
  // One transaction: every region of the batch (all of the store's layers), its run-state
  // entries and time origin, or nothing of it (an Error is thrown).
  virtual void write(const StoreBatch& batch) = 0;
  // As RegionStore::readRegion: the region's layers (all, or those asked for), or nullopt.
  virtual std::optional<Region> readRegion(const RegionKey& key, std::optional<std::vector<LayerId>> layers = std::nullopt) = 0;
  // Region keys in ascending order (x, then y, then z), only those intersecting `box` if given.
  virtual std::vector<RegionKey> keys(const std::optional<StoreBox>& box = std::nullopt) = 0;
  // Run-state values (written with write()'s batch, or on their own).
  virtual std::optional<std::string> value(const std::string& key) = 0;
  virtual void setValue(const std::string& key, const std::string& value) = 0;
  // Rows read and decompressed since opening.
  virtual uint64_t rowsRead() const = 0;
  // After a write: makes the store's main file hold every commit, so that the file alone (a
  // copy of it, or what a killed writer leaves without its SQLite -wal file) is complete. A
  // server store has nothing to do.
  virtual void foldLog() {}
};

struct MapStoreOptions {
  RegionStoreOptions sqlite;  // an SQLite store
  // A server: the session a writer pushes to, or a reader reads (empty: a reader reads the
  // fused map of every session; a writer must name one).
  std::string session;
};

// Whether `target` names a PostgreSQL server rather than a file. Messages name a target
// through redactedStoreName (voxen/store/store_name.hpp), never as given.
bool isPostgresTarget(const std::string& target);

// Opens (creating it when missing) the store `target` names for a writer; see
// RegionStore::openForWriting. Throws Error naming the target; for a server when this build
// has no PostgreSQL support, an Error saying so.
std::unique_ptr<MapStore> openMapStoreForWriting(const std::string& target, const StoreDescription& description,
                                                 const MapStoreOptions& options = {});
// An existing store, read only.
std::unique_ptr<MapStore> openMapStoreForReading(const std::string& target, const MapStoreOptions& options = {});

}  // namespace voxen

#pragma once
// A region store: a map kept in an SQLite file, one row per (layer, region), so that a map can
// be written batch by batch while it grows and read region by region on demand. The schema
// and the transactions are described in docs/architecture.md ("Region stores").
//
// - The description (format version, model, layer table with sizes and versions, derived
//   settings, time origin) is written once when the store is created; opening an existing
//   store for writing checks it against the caller's map and refuses another resolution,
//   region size, model or layer table with an Error naming both values.
// - write() commits a batch of regions (and run-state entries) in one transaction
//   (BEGIN IMMEDIATE): a reader, a crash or an exception half-way sees all of it or none.
// - Each row holds one layer's bytes for one region, little-endian, zstd-compressed, with its
//   uncompressed size and the CRC32 of the uncompressed bytes; a row that fails any of these
//   checks is an Error naming the file, the region key and the layer.
// - One writer at a time: a writer records its pid and host in the store when it opens it
//   (removed when it closes) and a second writer is refused with an Error naming them; a
//   write that cannot get SQLite's write lock within the busy timeout names them too.
// - Readers run beside the writer (WAL mode) and see the last committed batch.
//
// Every error is a voxen::Error naming the store's file.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "voxen/map/map.hpp"
#include "voxen/store/map_store.hpp"

namespace voxen {

class RegionStore : public MapStore {
 public:
  // An existing store, read only. Throws Error for a file that is not a store, or one whose
  // description this build cannot read (another format version, an unknown layer of another
  // shape).
  static RegionStore openForReading(const std::filesystem::path& path, const RegionStoreOptions& options = {});
  // Creates the store with this description, or opens the existing one at `path` after
  // checking that it has the same resolution, region size, model and layers. Registers this
  // process as the store's writer (refused when another live writer is registered).
  static RegionStore openForWriting(const std::filesystem::path& path, const StoreDescription& description,
                                    const RegionStoreOptions& options = {});

  RegionStore(RegionStore&&) noexcept;
  RegionStore& operator=(RegionStore&&) noexcept;
  ~RegionStore() override;  // a writer's registration is removed

  const std::filesystem::path& path() const;
  const StoreDescription& description() const override;
  std::string name() const override { return path().string(); }

  // Writes the batch in one transaction; on any error (an invalid region, a full disk, the
  // write lock not granted in time) nothing of it is kept and an Error is thrown.
  void write(const StoreBatch& batch) override;
  // Folds the write-ahead log into the file (a TRUNCATE checkpoint; without waiting for
  // readers on older snapshots, whose frames stay in the log until the next fold).
  void foldLog() override;

  // One region's layers (those in `layers`, each one of the store's; nullopt: all of them), or
  // nullopt when the store has no such region. The arrays of layers not asked for are left
  // empty.
  std::optional<Region> readRegion(const RegionKey& key, std::optional<std::vector<LayerId>> layers = std::nullopt) override;
  // Region keys in ascending order (x, then y, then z); only those intersecting `box` when given.
  std::vector<RegionKey> keys(const std::optional<StoreBox>& box = std::nullopt) override;
  uint64_t regionCount();
  // The whole map, or the regions that intersect `box`. Regions are checked for values their
  // layers cannot hold, as map files are on load.
  OccupancyMap readMap(const std::optional<StoreBox>& box = std::nullopt);

  // Run state: small named values committed with the regions (write()) or on their own.
  std::optional<std::string> value(const std::string& key) override;
  void setValue(const std::string& key, const std::string& value) override;

  // Rows (one layer of one region) read and decompressed since opening: what a bounded read
  // cost.
  uint64_t rowsRead() const override;
  // Sizes over every row: compressed blob bytes and uncompressed bytes.
  struct Totals {
    uint64_t rows = 0, compressedBytes = 0, uncompressedBytes = 0;
  };
  Totals totals();
  // Per region, in key order: the bytes of its rows, compressed and not (for `voxen info`).
  struct RegionSizes {
    RegionKey key;
    uint64_t compressedBytes = 0, uncompressedBytes = 0;
  };
  std::vector<RegionSizes> regionSizes();

  class Impl;

 private:
  explicit RegionStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen

#pragma once
// Whole maps to and from region stores (voxen/store/region_store.hpp), and telling a store
// from a map file (.vxm) by its content.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "voxen/map/map.hpp"
#include "voxen/store/region_store.hpp"

namespace voxen {

// "SQLite format 3\0": the first 16 bytes of every SQLite database.
inline constexpr char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};

// What a file's first 100 bytes (SQLite's database header) say it is.
enum class StoreFileKind {
  Other,         // not an SQLite database (a map file, anything else; a missing or short file)
  Store,         // starts with SQLite's magic
  DamagedStore,  // the magic damaged, but the rest of the header is a Voxen store's (its
                 // application id "VXST" at byte 68) or at least 12 of the magic's 16 bytes hold
};
// `damage`, when given and the file is a damaged store: which byte differs and how.
StoreFileKind storeFileKind(const std::filesystem::path& path, std::string* damage = nullptr);

// Whether the file at `path` is a region store, or a damaged one (so that its reader names it
// as a store rather than the map file reader calling it a bad map file); false for a missing
// or short file: the map file reader then reports what is wrong with it.
bool isRegionStoreFile(const std::filesystem::path& path);

// Writes the map as a new store at `path`, replacing any file there only once the store is
// complete: the store is built in a temporary sibling, closed (its WAL folded back in) and
// renamed over the target, so a reader or a crash sees the old file or the whole new store.
// An existing store that still has a non-empty write-ahead log beside it (open in another
// process, or not closed cleanly) is refused: renaming over it would pair its log with the
// new file.
void saveMapToStore(const OccupancyMap& map, const std::filesystem::path& path, const RegionStoreOptions& options = {});

// Regions per transaction while a store is built: the write-ahead log is folded back into
// the file after each (SQLite's auto-checkpoint), so it stays small beside a large map.
inline constexpr size_t kStoreBuildBatchRegions = 256;

// What saveMapToStore does for a store filled by `fill` (batch by batch, so that a streamed
// producer such as mergeMaps never holds the whole map): the same temporary sibling, checks
// and rename; an exception from `fill` leaves any existing file at `path` untouched.
void buildStore(const std::filesystem::path& path, const StoreDescription& description, const RegionStoreOptions& options,
                const std::function<void(RegionStore&)>& fill);

// The whole map, or only the regions intersecting `box`.
OccupancyMap loadMapFromStore(const std::filesystem::path& path, const std::optional<StoreBox>& box = std::nullopt);

}  // namespace voxen

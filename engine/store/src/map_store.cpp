// Picking a store's implementation from its target: a file is an SQLite region store; a
// postgresql:// URL a server (when this build has PostgreSQL support).
#include "voxen/store/map_store.hpp"

#include "voxen/host/error.hpp"
#include "voxen/store/region_store.hpp"
#include "voxen/store/store_file.hpp"

namespace voxen {

bool isPostgresTarget(const std::string& target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

namespace {

[[noreturn]] void noPostgres(const std::string& target) {
  throw Error("store '" + target + "': this build of Voxen has no PostgreSQL support (it was built without libpq-dev; "
              "install it and build again)");
}

}  // namespace

std::unique_ptr<MapStore> openMapStoreForWriting(const std::string& target, const StoreDescription& description,
                                                 const MapStoreOptions& options) {
  if (isPostgresTarget(target)) noPostgres(target);
  // Some other file (a cloud, a map file) given as a store: named, never written to.
  std::error_code ec;
  if (std::filesystem::file_size(target, ec) > 0 && !ec && !isRegionStoreFile(target))
    throw Error("store '" + target + "': not a region store (an SQLite file): refusing to write to it");
  return std::make_unique<RegionStore>(RegionStore::openForWriting(target, description, options.sqlite));
}

std::unique_ptr<MapStore> openMapStoreForReading(const std::string& target, const MapStoreOptions& options) {
  if (isPostgresTarget(target)) noPostgres(target);
  return std::make_unique<RegionStore>(RegionStore::openForReading(target, options.sqlite));
}

}  // namespace voxen

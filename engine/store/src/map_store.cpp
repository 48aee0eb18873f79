// Picking a store's implementation from its target: a file is an SQLite region store; a
// postgresql:// URL a server (when this build has PostgreSQL support).
#include "voxen/store/map_store.hpp"

#include "voxen/host/error.hpp"
#include "voxen/store/region_store.hpp"
#include "voxen/store/store_file.hpp"
#ifdef VOXEN_HAVE_POSTGRES
#include "voxen/store/pg_store.hpp"
#endif

namespace voxen {

bool isPostgresTarget(const std::string& target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

namespace {

// A keyword/value string would otherwise be taken for a file path, and a store created under
// a name holding its password.
void refuseKeywordString(const std::string& target) {
  if (isKeywordConnectionString(target))
    throw Error("store '" + redactedStoreName(target) + "': a libpq keyword/value connection string; Voxen names a PostgreSQL "
                "store by a URL: postgresql://USER@HOST/DATABASE?host=...&sslmode=... (a password in it is never shown)");
}

#ifndef VOXEN_HAVE_POSTGRES
[[noreturn]] void noPostgres(const std::string& target) {
  throw Error("store '" + redactedStoreName(target) + "': this build of Voxen has no PostgreSQL support (it was "
              "built without libpq-dev; install it and build again)");
}
#endif

}  // namespace

std::unique_ptr<MapStore> openMapStoreForWriting(const std::string& target, const StoreDescription& description,
                                                 const MapStoreOptions& options) {
  refuseKeywordString(target);
  if (isPostgresTarget(target)) {
#ifdef VOXEN_HAVE_POSTGRES
    return PgMapStore::openForWriting(target, description, options.session, options.sqlite);
#else
    noPostgres(target);
#endif
  }
  if (!options.session.empty())
    throw Error("store '" + redactedStoreName(target) +
                "': a session was named, but sessions belong to PostgreSQL stores; an SQLite store holds one map");
  // Some other file (a cloud, a map file) given as a store: named, never written to.
  std::error_code ec;
  if (std::filesystem::file_size(target, ec) > 0 && !ec && !isRegionStoreFile(target))
    throw Error("store '" + redactedStoreName(target) + "': not a region store (an SQLite file): refusing to write to it");
  return std::make_unique<RegionStore>(RegionStore::openForWriting(target, description, options.sqlite));
}

std::unique_ptr<MapStore> openMapStoreForReading(const std::string& target, const MapStoreOptions& options) {
  refuseKeywordString(target);
  if (isPostgresTarget(target)) {
#ifdef VOXEN_HAVE_POSTGRES
    return PgMapStore::openForReading(target, options.session);
#else
    noPostgres(target);
#endif
  }
  if (!options.session.empty())
    throw Error("store '" + redactedStoreName(target) +
                "': a session was named, but sessions belong to PostgreSQL stores; an SQLite store holds one map");
  return std::make_unique<RegionStore>(RegionStore::openForReading(target, options.sqlite));
}

}  // namespace voxen

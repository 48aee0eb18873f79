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

std::string redactedTarget(const std::string& target) {
  if (!isPostgresTarget(target)) return target;
  std::string out = target;
  const size_t start = out.find("://") + 3;
  const size_t end = out.find_first_of("/?", start);
  const size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
  if (at != std::string::npos && at >= start) {
    const size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    if (p > 0 && out[p - 1] != '?' && out[p - 1] != '&') continue;
    const size_t value = p + 9;
    const size_t stop = out.find('&', value);
    out.replace(value, (stop == std::string::npos ? out.size() : stop) - value, "***");
  }
  return out;
}

namespace {

#ifndef VOXEN_HAVE_POSTGRES
[[noreturn]] void noPostgres(const std::string& target) {
  throw Error("store '" + redactedTarget(target) + "': this build of Voxen has no PostgreSQL support (it was "
              "built without libpq-dev; install it and build again)");
}
#endif

}  // namespace

std::unique_ptr<MapStore> openMapStoreForWriting(const std::string& target, const StoreDescription& description,
                                                 const MapStoreOptions& options) {
  if (isPostgresTarget(target)) {
#ifdef VOXEN_HAVE_POSTGRES
    return PgMapStore::openForWriting(target, description, options.session, options.sqlite);
#else
    noPostgres(target);
#endif
  }
  if (!options.session.empty())
    throw Error("store '" + target + "': a session was named, but sessions belong to PostgreSQL stores; an SQLite store holds one map");
  // Some other file (a cloud, a map file) given as a store: named, never written to.
  std::error_code ec;
  if (std::filesystem::file_size(target, ec) > 0 && !ec && !isRegionStoreFile(target))
    throw Error("store '" + target + "': not a region store (an SQLite file): refusing to write to it");
  return std::make_unique<RegionStore>(RegionStore::openForWriting(target, description, options.sqlite));
}

std::unique_ptr<MapStore> openMapStoreForReading(const std::string& target, const MapStoreOptions& options) {
  if (isPostgresTarget(target)) {
#ifdef VOXEN_HAVE_POSTGRES
    return PgMapStore::openForReading(target, options.session);
#else
    noPostgres(target);
#endif
  }
  if (!options.session.empty())
    throw Error("store '" + target + "': a session was named, but sessions belong to PostgreSQL stores; an SQLite store holds one map");
  return std::make_unique<RegionStore>(RegionStore::openForReading(target, options.sqlite));
}

}  // namespace voxen

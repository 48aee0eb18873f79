#include "commands/map_source.hpp"

#include <cstdio>

#include "cli_options.hpp"
#include "option_checks.hpp"
#include "report/progress.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/store/store_file.hpp"
#ifdef VOXEN_HAVE_POSTGRES
#include "voxen/store/pg_store.hpp"
#endif

namespace voxen::cli {

void addBboxOption(CLI::App& command, std::vector<double>& values, const std::string& what) {
  command.add_option("--bbox", values, what)
      ->type_name("XMIN YMIN ZMIN XMAX YMAX ZMAX")
      ->expected(6)
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
}

std::optional<StoreBox> bboxOf(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  const StoreBox box{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
  const char* axes = "xyz";
  for (int i = 0; i < 3; ++i)
    if (box.min[i] > box.max[i])
      throw UsageError("--bbox: " + std::string(1, axes[i]) + "min " + std::to_string(box.min[i]) + " is greater than " +
                       std::string(1, axes[i]) + "max " + std::to_string(box.max[i]));
  return box;
}

void addSessionOption(CLI::App& command, std::string& session) {
  command.add_option("--session", session, "with a PostgreSQL store: read this session's map (default: the fused map of every session)")
      ->type_name("NAME");
}

bool isStoreTarget(const std::string& target) { return isPostgresTarget(target) || isRegionStoreFile(target); }

namespace {

void requireSessionTarget(const std::string& path, const std::string& session) {
  if (!session.empty() && !isPostgresTarget(path))
    throw UsageError("--session " + session + ": '" + redactedStoreName(path) +
                     "' is not a PostgreSQL store (a postgresql:// URL); only a server store holds sessions");
}

// A server store, read region by region through MapStore (an SQLite store reads in one query).
OccupancyMap loadServerStore(const std::string& target, const MapLoadOptions& options, const std::optional<StoreBox>& box,
                             const char* who, const std::string& session) {
  std::unique_ptr<MapStore> store = openMapStoreForReading(target, {.session = session});
  const std::vector<RegionKey> keys = store->keys(box);
  OccupancyMap map = store->description().emptyMap();
  checkMemoryBudget(keys.size() * map.bytesPerRegion(), options.memoryBudgetBytes,
                    store->name() + ": loading " + std::to_string(keys.size()) + " regions", options.budgetHint);
  // A server sends a region per round trip: a large map takes a while.
  Progress progress("read", keys.size(), true, "regions");
  for (size_t k = 0; k < keys.size(); ++k) {
    if (std::optional<Region> region = store->readRegion(keys[k])) map.region(keys[k]).layers = std::move(region->layers);
    progress.update(k + 1);
  }
  progress.finish(keys.size());
  if (box && who)
    std::fprintf(stderr, "%s: --bbox: read %zu regions of store %s (%llu rows)\n", who, map.regions().size(), store->name().c_str(),
                 (unsigned long long)store->rowsRead());
  return map;
}

}  // namespace

OccupancyMap loadMapOrStore(const std::string& path, const MapLoadOptions& options, const std::optional<StoreBox>& box,
                            const char* who, const std::string& session) {
  requireSessionTarget(path, session);
  if (isPostgresTarget(path)) return loadServerStore(path, options, box, who, session);
  if (!isRegionStoreFile(path)) {
    OccupancyMap map = loadMap(path, options);
    if (!box) return map;
    const RegionKeyRange range = regionKeysIntersecting(map.model(), *box);
    OccupancyMap part(map.model(), map.layout());
    part.setTimeOrigin(map.timeOrigin());
    for (const LayerId id : map.layout().ids()) part.setDerivedSettings(id, map.derivedSettings(id));
    for (const auto& [key, region] : map.regions())
      if (range.contains(key)) part.region(key).layers = region.layers;
    if (who)
      std::fprintf(stderr, "%s: --bbox: kept %zu of %zu regions of map file %s (a map file is read whole)\n", who,
                   part.regions().size(), map.regions().size(), redactedStoreName(path).c_str());
    return part;
  }
  RegionStore store = RegionStore::openForReading(path);
  const uint64_t total = store.regionCount();
  const uint64_t regions = box ? store.keys(box).size() : total;
  const OccupancyMap shape = store.description().emptyMap();
  checkMemoryBudget(regions * shape.bytesPerRegion(), options.memoryBudgetBytes,
                    redactedStoreName(path) + ": loading " + std::to_string(regions) + " regions", options.budgetHint);
  OccupancyMap map = store.readMap(box);
  if (box && who)
    std::fprintf(stderr, "%s: --bbox: read %zu of %llu regions of store %s (%llu rows)\n", who, map.regions().size(),
                 (unsigned long long)total, redactedStoreName(path).c_str(), (unsigned long long)store.rowsRead());
  return map;
}

namespace {

// What `voxen info` shows of a map file, from a store's description (version: the store's
// format version).
MapFileInfo infoOf(const StoreDescription& d) {
  MapFileInfo info;
  info.version = d.formatVersion;
  info.model = d.model;
  info.layout = d.layout;
  info.layers = d.layout.optionalLayers();
  info.timeOrigin = d.timeOrigin;
  info.derivedSettings = d.derivedSettings;
  if (d.layout.has(kTouchTimeLayer)) info.touchTimeVersion = layerType(kTouchTimeLayer).version;
  return info;
}

}  // namespace

MapFileInfo storeInfo(const std::string& path, const std::string& session) {
  requireSessionTarget(path, session);
  if (isPostgresTarget(path)) {
#ifdef VOXEN_HAVE_POSTGRES
    std::unique_ptr<PgMapStore> store = PgMapStore::openForReading(path, session);
    MapFileInfo info = infoOf(store->description());
    for (const PgMapStore::RegionSizes& r : store->regionSizes()) {
      info.regions.push_back({.key = r.key, .uncompressedBytes = uint32_t(r.uncompressedBytes), .compressedBytes = uint32_t(r.compressedBytes)});
      info.fileBytes += r.compressedBytes;
    }
    return info;
#else
    openMapStoreForReading(path);  // refused: no PostgreSQL support
#endif
  }
  RegionStore store = RegionStore::openForReading(path);
  MapFileInfo info = infoOf(store.description());
  // The database and its write-ahead log: during a run most of a store can be in the log.
  std::error_code ec;
  info.fileBytes = std::filesystem::file_size(path, ec);
  // store-name: not shown
  if (const auto wal = std::filesystem::file_size(path + "-wal", ec); !ec) info.fileBytes += wal;
  for (const RegionStore::RegionSizes& r : store.regionSizes())
    info.regions.push_back({.key = r.key, .uncompressedBytes = uint32_t(r.uncompressedBytes), .compressedBytes = uint32_t(r.compressedBytes)});
  return info;
}

}  // namespace voxen::cli

// A depth run's map into a region store at the end of the run (map_depth_store.hpp).
#include "commands/map/map_depth_store.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "output_checks.hpp"
#include "voxen/host/error.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

// Regions per push to a server session (voxen convert's default).
constexpr size_t kPushRegions = 64;

}  // namespace

bool checkDepthStoreOptions(const MapArgs& args) {
  // --resume first: it names a store with a ray run's checkpoints, which a depth run never has.
  if (args.resume)
    throw UsageError("--resume does not go with --tsdf: a depth run writes its store once, at the end, and keeps no "
                     "checkpoint to resume from (run it again to remake the store)");
  for (const CLI::Option* option : args.storeSettings) {
    const std::string flag = option->get_name();
    if (option->count() > 0 && flag != "--session")
      throw UsageError(flag + " does not go with --tsdf: a depth run holds its map in memory and writes its store once, at "
                       "the end, without checkpoints");
  }
  if (args.store.empty()) return false;
  checkStoreOptions(args);  // --output with --store, a server without --session, a file with one
  if (!isPostgresTarget(args.store)) checkOutputs({{"--store", args.store}}, {{"--input", args.input}});
  return true;
}

std::string saveDepthMapToStore(const OccupancyMap& map, const MapArgs& args) {
  if (!isPostgresTarget(args.store)) {
    saveMapToStore(map, args.store);
    return "region store " + redactedStoreName(args.store);
  }
  std::unique_ptr<MapStore> store = openMapStoreForWriting(args.store, StoreDescription::of(map), {.session = args.session});
  std::vector<const Region*> regions;
  regions.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) regions.push_back(&region);
  std::sort(regions.begin(), regions.end(), [](const Region* a, const Region* b) { return a->key < b->key; });
  for (size_t first = 0; first < regions.size(); first += kPushRegions) {
    StoreBatch batch;
    batch.regions.assign(regions.begin() + first, regions.begin() + std::min(regions.size(), first + kPushRegions));
    if (first == 0) batch.timeOrigin = map.timeOrigin();
    store->write(batch);
  }
  if (regions.empty()) store->write({.timeOrigin = map.timeOrigin()});
  return "PostgreSQL store " + redactedStoreName(args.store) + ", session '" + args.session + "'";
}

}  // namespace voxen::cli

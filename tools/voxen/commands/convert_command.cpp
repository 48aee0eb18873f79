// `voxen convert IN OUT [--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX] [--level N] [--session NAME]`: a
// map file (.vxm) to a region store, or a store to a map file, losslessly (a .vxm converted to
// a store and back is the same bytes). The direction is told by IN's content. A PostgreSQL
// store (postgresql://...) converts to a map file (its fused map, or one session's with
// --session), and a map file converts into a session of one (--session required), pushed in
// batches of --push-regions regions.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/progress.hpp"
#include "voxen/store/store_file.hpp"
#ifdef VOXEN_HAVE_POSTGRES
#include "voxen/store/pg_store.hpp"
#endif

namespace voxen::cli {

namespace {

struct ConvertArgs {
  std::string input, output, session;
  std::vector<double> bbox;
  int level = 1;
  uint32_t pushRegions = 64;
  bool quiet = false;
};

// Pushes `map` into a server store's session, a batch of regions per transaction, in key order.
void pushToServer(const OccupancyMap& map, const ConvertArgs& args, bool quiet) {
  MapStoreOptions options;
  options.session = args.session;
  options.sqlite.compressionLevel = args.level;
  std::unique_ptr<MapStore> store = openMapStoreForWriting(args.output, StoreDescription::of(map), options);
  std::vector<RegionKey> keys;
  keys.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Progress progress("push", keys.size(), !quiet, "regions");
  for (size_t first = 0; first < keys.size(); first += args.pushRegions) {
    StoreBatch batch;
    for (size_t k = first; k < std::min(keys.size(), first + args.pushRegions); ++k) batch.regions.push_back(&map.regions().at(keys[k]));
    if (first == 0) batch.timeOrigin = map.timeOrigin();
    store->write(batch);
    progress.update(first + batch.regions.size());
  }
  if (keys.empty()) store->write({.timeOrigin = map.timeOrigin()});
  progress.finish(keys.size());
#ifdef VOXEN_HAVE_POSTGRES
  if (const auto* server = dynamic_cast<const PgMapStore*>(store.get()); server && server->retries() > 0)
    std::fprintf(stderr, "voxen convert: %llu pushes were retried (a deadlock, a serialization failure or a lost connection)\n",
                 (unsigned long long)server->retries());
#endif
}

int convert(const CommonOptions& options, const ConvertArgs& args) {
  const std::optional<StoreBox> box = bboxOf(args.bbox);
  const bool fromServer = isPostgresTarget(args.input), toServer = isPostgresTarget(args.output);
  if (fromServer && toServer) throw UsageError("IN and OUT are both PostgreSQL stores: convert one to a map file first");
  if (!args.session.empty() && !fromServer && !toServer)
    throw UsageError("--session " + args.session + ": neither IN nor OUT is a PostgreSQL store (a postgresql:// URL)");
  if (toServer && args.session.empty())
    throw UsageError("OUT is a PostgreSQL store: give --session NAME, the session this map is pushed to");
  const bool fromStore = fromServer || isRegionStoreFile(args.input);
  if (toServer && fromStore) throw UsageError("IN '" + redactedStoreName(args.input) + "' is a store: convert it to a map file first, then push that");
  const bool toStore = !fromStore;
  if (toStore && !toServer && args.output.ends_with(".vxm"))
    throw UsageError("OUT '" + redactedStoreName(args.output) + "' ends in .vxm, but IN is a map file and converts to a region store; name the store "
                     "otherwise (OUT.vxs)");
  if (!toServer) checkOutputs({{"OUT", args.output}}, {{"IN", args.input}});
  const auto start = std::chrono::steady_clock::now();
  const OccupancyMap map = loadMapOrStore(args.input, budgetedLoad(options), box, "voxen convert", fromServer ? args.session : "");
  if (toServer)
    pushToServer(map, args, args.quiet || options.json);
  else if (toStore)
    saveMapToStore(map, args.output, {.compressionLevel = args.level});
  else
    saveMap(map, args.output);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto kind = [](bool server, bool store) { return server ? "PostgreSQL store" : store ? "region store" : "map file"; };
  std::printf("converted %s (%s) -> %s (%s%s): %zu regions, layers %s, in %.2f s\n", redactedStoreName(args.input).c_str(),
              kind(fromServer, fromStore), redactedStoreName(args.output).c_str(), kind(toServer, toStore),
              args.session.empty() ? "" : (", session '" + args.session + "'").c_str(), map.regions().size(), map.layout().names().c_str(),
              seconds);
  return 0;
}

CommandRun setupConvert(CLI::App& command) {
  auto args = std::make_shared<ConvertArgs>();
  command.add_option("IN", args->input, "a map file (.vxm) or a region store (told by content), or a PostgreSQL store (postgresql://...)")
      ->required();
  command.add_option("OUT", args->output,
                     "the converted map: a store when IN is a map file (an SQLite file, or a postgresql:// URL with --session), a "
                     "map file when IN is a store")
      ->required();
  addBboxOption(command, args->bbox, "convert only the regions intersecting this box (metres)");
  command.add_option("--level", args->level, "zstd level of a store's rows (default 1: fastest)")->type_name("N")->check(integerIn(1, 19));
  command.add_option("--session", args->session,
                     "a PostgreSQL IN: read this session (default: the fused map); a PostgreSQL OUT: push to this session (required)")
      ->type_name("NAME");
  command.add_option("--push-regions", args->pushRegions, "a PostgreSQL OUT: regions per push (one transaction each; default 64)")
      ->type_name("N")
      ->check(integerIn(1, 100000));
  command.add_flag("--quiet", args->quiet, "no progress line on stderr while pushing");
  return [args](const CommonOptions& options) { return convert(options, *args); };
}

}  // namespace

static CommandRegistration registration{"convert", "convert a map file (.vxm) to a region store (SQLite or PostgreSQL) or back, losslessly",
                                        &setupConvert, Uses::MemoryBudget};

}  // namespace voxen::cli

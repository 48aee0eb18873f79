#pragma once
// `voxen map --input DEPTH --tsdf --store STORE [--session NAME]`: a depth run's map into a
// region store (an SQLite file, or a PostgreSQL server's session) instead of a map file.
// Unlike a ray run (map_store_run.cpp, voxen::MappingRun) a depth run keeps no checkpoints:
// the store is written once, at the end, with the whole map. An SQLite store is built beside
// the target and renamed over it (voxen/store/store_file.hpp: saveMapToStore), so a reader or
// a failed run sees the old store or the whole new one; a session is pushed in batches of
// regions, one transaction each (a reader of the fused map may see a push half done, as with
// voxen convert). A stopped run writes nothing, and --resume, --checkpoint-s and the other
// checkpoint options are refused by name.
#include <string>

#include "commands/map/map_args.hpp"
#include "voxen/map/map.hpp"

namespace voxen::cli {

// Whether the run writes a store, after refusing the store options a depth run has no use for
// and the store's own conflicts (--output with --store, a server without --session).
bool checkDepthStoreOptions(const MapArgs& args);

// Writes `map` into args.store (args.session on a server); returns the store's words for the
// summary ("region store X" or "PostgreSQL store X, session 'S'").
std::string saveDepthMapToStore(const OccupancyMap& map, const MapArgs& args);

}  // namespace voxen::cli

#pragma once
// The maps the commands read: a map file (.vxm) or a region store (voxen/store), told apart by
// content, never by name, or a PostgreSQL store (a postgresql:// URL), whose fused map is read
// or, with `--session NAME`, one session's map. `--bbox` limits a read to the regions
// intersecting a box.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/map/map_file.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/region_store.hpp"

namespace voxen::cli {

// Declares `--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX` (metres, finite, within the tool's range).
void addBboxOption(CLI::App& command, std::vector<double>& values, const std::string& what);
// The box of --bbox's values (none given: nullopt); UsageError when a min exceeds its max.
std::optional<StoreBox> bboxOf(const std::vector<double>& values);

// Declares `--session NAME`: the session of a PostgreSQL store to read (default: the fused map
// of every session).
void addSessionOption(CLI::App& command, std::string& session);
// Whether `target` is a store (an SQLite store file or a server URL) rather than a map file.
bool isStoreTarget(const std::string& target);

// Loads a map file or a store (only the regions intersecting `box` when given: a store reads
// only their rows, a map file is read whole and the rest dropped). The memory budget in
// `options` applies to the regions read. With a box, `who` ("voxen export") reports on stderr
// how many regions and rows were read.
// `session` (a server store's; refused for anything else) selects one session.
OccupancyMap loadMapOrStore(const std::string& path, const MapLoadOptions& options, const std::optional<StoreBox>& box = std::nullopt,
                            const char* who = nullptr, const std::string& session = {});

// What `voxen info` shows of a map file, for a store: its description and per-region sizes
// (version: the store's format version; fileBytes: the database file's size, or a server
// store's compressed row bytes).
MapFileInfo storeInfo(const std::string& path, const std::string& session = {});

}  // namespace voxen::cli

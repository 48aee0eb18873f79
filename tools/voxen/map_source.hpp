#pragma once
// The maps the commands read: a map file (.vxm) or a region store (voxen/store), told apart by
// content, never by name. `--bbox` limits a read to the regions intersecting a box.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/map/map_file.hpp"
#include "voxen/store/region_store.hpp"

namespace voxen::cli {

// Declares `--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX` (metres, finite, within the tool's range).
void addBboxOption(CLI::App& command, std::vector<double>& values, const std::string& what);
// The box of --bbox's values (none given: nullopt); UsageError when a min exceeds its max.
std::optional<StoreBox> bboxOf(const std::vector<double>& values);

// Loads a map file or a store (only the regions intersecting `box` when given: a store reads
// only their rows, a map file is read whole and the rest dropped). The memory budget in
// `options` applies to the regions read. With a box, `who` ("voxen export") reports on stderr
// how many regions and rows were read.
OccupancyMap loadMapOrStore(const std::string& path, const MapLoadOptions& options, const std::optional<StoreBox>& box = std::nullopt,
                            const char* who = nullptr);

// What `voxen info` shows of a map file, for a store: its description and per-region sizes
// (version: the store's format version; fileBytes: the database file's size).
MapFileInfo storeInfo(const std::string& path);

}  // namespace voxen::cli

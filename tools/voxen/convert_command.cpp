// `voxen convert IN OUT [--bbox XMIN YMIN ZMIN XMAX YMAX ZMAX] [--level N]`: a map file (.vxm)
// to a region store, or a store to a map file, losslessly (a .vxm converted to a store and
// back is the same bytes). The direction is told by IN's content.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/store/store_file.hpp"

namespace voxen::cli {

namespace {

struct ConvertArgs {
  std::string input, output;
  std::vector<double> bbox;
  int level = 1;
};

int convert(const CommonOptions& options, const ConvertArgs& args) {
  const std::optional<StoreBox> box = bboxOf(args.bbox);
  const bool toStore = !isRegionStoreFile(args.input);
  if (toStore && args.output.ends_with(".vxm"))
    throw UsageError("OUT '" + args.output + "' ends in .vxm, but IN is a map file and converts to a region store; name the store "
                     "otherwise (OUT.vxs)");
  checkOutputs({{"OUT", args.output}}, {{"IN", args.input}});
  const auto start = std::chrono::steady_clock::now();
  const OccupancyMap map = loadMapOrStore(args.input, budgetedLoad(options), box, "voxen convert");
  if (toStore)
    saveMapToStore(map, args.output, {.compressionLevel = args.level});
  else
    saveMap(map, args.output);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("converted %s (%s) -> %s (%s): %zu regions, layers %s, in %.2f s\n", args.input.c_str(),
              toStore ? "map file" : "region store", args.output.c_str(), toStore ? "region store" : "map file",
              map.regions().size(), map.layout().names().c_str(), seconds);
  return 0;
}

CommandRun setupConvert(CLI::App& command) {
  auto args = std::make_shared<ConvertArgs>();
  command.add_option("IN", args->input, "a map file (.vxm) or a region store (told by content)")->required();
  command.add_option("OUT", args->output, "the converted map: a store when IN is a map file, a map file when IN is a store")
      ->required();
  addBboxOption(command, args->bbox, "convert only the regions intersecting this box (metres)");
  command.add_option("--level", args->level, "zstd level of a store's rows (default 1: fastest)")->type_name("N")->check(integerIn(1, 19));
  return [args](const CommonOptions& options) { return convert(options, *args); };
}

}  // namespace

static CommandRegistration registration{"convert", "convert a map file (.vxm) to a region store (SQLite) or back, losslessly",
                                        &setupConvert, Uses::MemoryBudget};

}  // namespace voxen::cli

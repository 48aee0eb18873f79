// `voxen import-octomap IN.bt --output MAP.vxm [--region-size N]`: reads an OctoMap binary
// tree and saves it as a Voxen map. The resolution comes from the file; the occupancy model
// is OctoMap's defaults (occupied voxels at its upper clamp, free ones at its lower clamp).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/export/octomap_io.hpp"

namespace voxen::cli {

namespace {

struct ImportArgs {
  std::string input, output;
  OccupancyModel base = OccupancyModel::octomap();
  bool allowEmpty = false;  // write the map even when the tree holds no known voxel
};

int importOctomapFile(const CommonOptions& options, const ImportArgs& args) {
  OccupancyModel base = args.base;
  base.validate();  // before the file is read
  checkOutputs({{"--output", args.output}}, {{"the input", args.input}});

  // The tree's expansion is counted and checked against the budget before any region exists.
  const OccupancyMap map = importOctomap(args.input, base, {options.memoryBudgetBytes(), options.memoryBudgetHint()});
  // An empty tree is a valid file (OctoMap writes one for an empty map), but a map of nothing
  // is almost always the wrong input: refused as `voxen map` refuses a run without rays.
  if (map.regions().empty() && !args.allowEmpty)
    throw Error("OctoMap import of " + args.input + ": the tree holds no known voxel (an empty tree), so nothing was " +
                "written to " + args.output + " (give --allow-empty to write the empty map anyway)");
  saveMap(map, args.output);
  const auto counts = map.counts();
  std::printf("imported %s: resolution %g m, %llu occupied and %llu free voxels in %llu regions of %d^3\n",
              args.input.c_str(), map.model().resolution, (unsigned long long)counts.occupied,
              (unsigned long long)counts.free, (unsigned long long)counts.regions, map.regionSize());
  std::error_code noSize;  // a device (/dev/null) has none
  const auto bytes = std::filesystem::file_size(args.output, noSize);
  if (noSize) std::printf("saved %s\n", args.output.c_str());
  else std::printf("saved %s (%llu bytes)\n", args.output.c_str(), (unsigned long long)bytes);
  return 0;
}

CommandRun setupImportOctomap(CLI::App& command) {
  auto args = std::make_shared<ImportArgs>();
  command.add_option("input", args->input, "the OctoMap binary tree to read (refused when its leaves expand past --memory-budget)")
      ->type_name("IN.bt")
      ->required();
  command.add_option("-o,--output", args->output, "the Voxen map to write")->type_name("MAP.vxm")->required();
  // The occupancy model's range (OccupancyModel::validate), as voxen map --region has it.
  command.add_option("--region-size", args->base.regionSize, "voxels per region edge")
      ->type_name("N")
      ->check(integerIn(4, 128))
      ->capture_default_str();
  command.add_flag("--allow-empty", args->allowEmpty, "write the (empty) map and succeed when the tree holds no known voxel");
  return [args](const CommonOptions& options) { return importOctomapFile(options, *args); };
}

}  // namespace

static CommandRegistration registration{"import-octomap", "read an OctoMap binary tree (.bt) and save it as a Voxen map",
                                        &setupImportOctomap,
                                        Uses::MemoryBudget};

}  // namespace voxen::cli

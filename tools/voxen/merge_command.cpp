// `voxen merge IN... --output OUT [--level N]`: maps (.vxm) or region stores of several runs,
// robots or sessions merged into one (voxen/store/map_merge.hpp has the rules; OUT is a map
// file when its name ends in .vxm, a store otherwise, as for `voxen convert`).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "progress.hpp"
#include "voxen/store/map_merge.hpp"

namespace voxen::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  int level = 1;
};

int merge(const CommonOptions& options, const MergeArgs& args) {
  if (args.inputs.size() < 2)
    throw UsageError("merge needs at least two maps or stores (IN...); " + std::to_string(args.inputs.size()) + " given");
  std::vector<NamedPath> inputs;
  std::vector<std::filesystem::path> paths;
  for (const std::string& in : args.inputs) {
    inputs.push_back({"IN", in});
    paths.emplace_back(in);
  }
  checkOutputs({{"--output", args.output}}, inputs);
  const bool toMapFile = mergeOutputIsMapFile(args.output);
  MergeOptions merge;
  merge.load = budgetedLoad(options);
  merge.storeOutput.compressionLevel = args.level;
  Progress progress("merging", 0, !options.json, "regions");
  merge.progress = [&](uint64_t done, uint64_t total) {
    if (done == 1) progress = Progress("merging", total, !options.json, "regions");
    done == total ? progress.finish(done) : progress.update(done);
  };
  const auto start = std::chrono::steady_clock::now();
  const MergeResult result = mergeMaps(paths, args.output, merge);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("merged %zu inputs -> %s (%s): %llu regions (%llu held by several inputs), layers %s, in %.2f s\n",
              args.inputs.size(), args.output.c_str(), toMapFile ? "map file" : "region store",
              (unsigned long long)result.regions, (unsigned long long)result.sharedRegions, result.layout.names().c_str(), seconds);
  for (const std::string& layer : result.droppedLayers)
    std::printf("note: layer %s is not merged (derived from occupancy): left out of %s; recompute it with voxen clearance\n",
                layer.c_str(), args.output.c_str());
  return 0;
}

CommandRun setupMerge(CLI::App& command) {
  auto args = std::make_shared<MergeArgs>();
  command.add_option("IN", args->inputs, "maps (.vxm) or region stores (told by content), at least two")->required();
  command.add_option("--output,-o", args->output, "the merged map: a map file when it ends in .vxm, a region store otherwise")
      ->type_name("OUT")
      ->required();
  command.add_option("--level", args->level, "zstd level of a store output's rows (default 1: fastest)")
      ->type_name("N")
      ->check(integerIn(1, 19));
  return [args](const CommonOptions& options) { return merge(options, *args); };
}

}  // namespace

static CommandRegistration registration{"merge", "merge maps or region stores of several runs into one (log-odds added, counts pooled)",
                                        &setupMerge, Uses::MemoryBudget};

}  // namespace voxen::cli

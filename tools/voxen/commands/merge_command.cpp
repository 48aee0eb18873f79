// `voxen merge IN... --output OUT [--level N]`: maps (.vxm), region stores or PostgreSQL
// stores (their fused maps) of several runs, robots or sessions merged into one
// (voxen/store/map_merge.hpp has the rules; OUT is a map file when its name ends in .vxm, an
// SQLite store otherwise, as for `voxen convert`).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/progress.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/store/map_merge.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  int level = 1;
  bool noRemainder = false;
};

// Clearance is derived from occupancy, so the merged map's is computed afresh (CPU reference,
// every region: a merged region's occupancy changed, and so may every region within the
// range of it) with the settings the inputs used; inputs computed with different settings
// leave it out, saying so.
void recomputeClearance(const CommonOptions& options, const MergeArgs& args, const MergeResult& result) {
  const std::optional<ClearanceOptions> settings =
      result.clearanceSettings.size() == 1 ? ClearanceOptions::parseSettings(result.clearanceSettings.front()) : std::nullopt;
  if (!settings) {
    std::string which;
    for (const std::string& s : result.clearanceSettings) which += "\n  " + (s.empty() ? std::string("(not recorded)") : s);
    std::printf("note: clearance is left out of %s: the inputs' clearance was computed with %s settings;%s\nrecompute it "
                "with voxen clearance\n",
                redactedStoreName(args.output).c_str(), result.clearanceSettings.size() == 1 ? "unrecorded" : "different", which.c_str());
    return;
  }
  OccupancyMap map = loadMapOrStore(args.output, budgetedLoad(options), std::nullopt, "voxen merge");
  Progress progress("clearance", 0, !options.json, "regions");
  const ClearanceStats stats = computeClearanceCpu(map, *settings, {}, [&](uint64_t done, uint64_t total) {
    if (done <= 1) progress = Progress("clearance", total, !options.json, "regions");
    done == total ? progress.finish(done) : progress.update(done);
  });
  if (mergeOutputIsMapFile(args.output))
    saveMap(map, args.output);
  else
    saveMapToStore(map, args.output, {.compressionLevel = args.level});
  std::printf("clearance recomputed for %llu regions (%s; CPU reference) in %.2f s\n", (unsigned long long)stats.regions,
              settings->describe().c_str(), stats.seconds);
}

int merge(const CommonOptions& options, const MergeArgs& args) {
  if (args.inputs.size() < 2)
    throw UsageError("merge needs at least two maps or stores (IN...); " + std::to_string(args.inputs.size()) + " given");
  // A server store is an input (its fused map), not an output: the server fuses its sessions itself.
  if (isPostgresTarget(args.output))
    throw UsageError("--output " + redactedStoreName(args.output) + ": merge writes a map file (.vxm) or an SQLite store; to put "
                     "the merged map on a server, push it: voxen convert MERGED.vxm postgresql://... --session NAME");
  std::vector<NamedPath> inputs;
  std::vector<std::filesystem::path> paths;
  for (const std::string& in : args.inputs) {
    inputs.push_back({"IN", in});
    paths.emplace_back(in);
  }
  checkOutputs({{"--output", args.output}}, inputs);
  const bool toMapFile = mergeOutputIsMapFile(args.output);
  MergeOptions merge;
  merge.memoryBudgetBytes = options.memoryBudgetBytes();
  merge.budgetHint = options.memoryBudgetHint();
  merge.storeOutput.compressionLevel = args.level;
  merge.keepRemainder = !args.noRemainder;
  Progress progress("merging", 0, !options.json, "regions");
  merge.progress = [&](uint64_t done, uint64_t total) {
    if (done == 1) progress = Progress("merging", total, !options.json, "regions");
    done == total ? progress.finish(done) : progress.update(done);
  };
  const auto start = std::chrono::steady_clock::now();
  const MergeResult result = mergeMaps(paths, args.output, merge);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("merged %zu inputs -> %s (%s): %llu regions (%llu held by several inputs), layers %s, in %.2f s\n",
              args.inputs.size(), redactedStoreName(args.output).c_str(), toMapFile ? "map file" : "region store",
              (unsigned long long)result.regions, (unsigned long long)result.sharedRegions, result.layout.names().c_str(), seconds);
  if (!result.droppedLayers.empty()) recomputeClearance(options, args, result);
  return 0;
}

CommandRun setupMerge(CLI::App& command) {
  auto args = std::make_shared<MergeArgs>();
  command.add_option("IN", args->inputs,
                     "maps (.vxm), region stores (told by content) or PostgreSQL stores (postgresql://...: the fused map of "
                     "their sessions), at least two")
      ->required();
  command.add_option("--output,-o", args->output, "the merged map: a map file when it ends in .vxm, a region store otherwise")
      ->type_name("OUT")
      ->required();
  command.add_option("--level", args->level, "zstd level of a store output's rows (default 1: fastest)")
      ->type_name("N")
      ->check(integerIn(1, 19));
  command.add_flag("--no-remainder", args->noRemainder,
                   "leave out occupancy_remainder (what clamping and rounding cut from the summed log-odds): a smaller "
                   "map that reads the same, but merging it again is no longer exact (not associative)");
  return [args](const CommonOptions& options) { return merge(options, *args); };
}

}  // namespace

static CommandRegistration registration{"merge", "merge maps or region stores of several runs into one (log-odds added exactly, the clamped sum stored "
                                        "and the clamped-off rest kept in occupancy_remainder, so merges in any order and "
                                        "grouping give the same bytes; counts pooled, NDT Gaussians pooled as sample sets; "
                                        "NDT maps must record the same NDT settings)",
                                        &setupMerge, Uses::MemoryBudget};

}  // namespace voxen::cli

// `voxen clearance MAP.vxm (--output OUT.vxm | --in-place) [--range 5] [--technique exact|roi|neighbour|openlist]
//                  [--unknown-free] [--axis-scale X Y Z] [--ignore-below Z] [--ignore-above Z] [--gpu-cache-mb N]
//                  [--cpu] [--quiet]`: each voxel's distance to the nearest obstacle within the range,
// stored as the map's clearance layer with the settings it was computed with, written to
// OUT.vxm or, with --in-place (or an --output that is the map itself), replacing MAP.vxm
// atomically once complete; progress on stderr, a summary on stdout.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "commands/clearance_cli.hpp"
#include "commands.hpp"
#include "report/json_output.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/progress.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/tsdf/tsdf_occupancy.hpp"
#include "voxen/host/error.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/profile.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/mapper.hpp"
#include "voxen/atomic_file/output_file.hpp"
#include "voxen/store/store_file.hpp"

namespace voxen::cli {

namespace {

struct ClearanceArgs {
  std::string mapPath, output;
  std::string session;  // --session: one session of a server store
  bool inPlace = false;
  ClearanceOptions options;
  std::vector<double> axisScale;
  std::optional<uint64_t> cacheMb;
  bool cpu = false, quiet = false;
  CLI::Option* technique = nullptr;  // given or not: --cpu is always exact
};

// The CPU reference is the exact transform on the host: the GPU's flags would be ignored.
void refuseGpuFlagsWithCpu(const CommonOptions& common, const ClearanceArgs& args) {
  if (!args.cpu) return;
  if (args.technique->count() > 0 && args.options.technique != ClearanceTechnique::Exact)
    throw UsageError("--technique " + std::string(clearanceTechniqueName(args.options.technique)) +
                     " has no effect with --cpu (the CPU reference is always exact: give --technique exact or leave "
                     "--technique out)");
  common.refuseWith({"--device", "--validation", "--hot-reload", "--profile"}, "--cpu",
                    "the CPU reference opens no device and runs no GPU passes");
  if (args.cacheMb) throw UsageError("--gpu-cache-mb has no effect with --cpu (the CPU reference has no GPU cache)");
}

// Where the map goes: another file, or the map itself (--in-place, or an --output that is
// the same file under another name or link). Checked before the map is read.
std::string settleOutput(const ClearanceArgs& args, bool& inPlace) {
  if (args.output.empty() && !args.inPlace)
    throw UsageError("give --output OUT.vxm for the map with its clearance, or --in-place to replace " + redactedStoreName(args.mapPath));
  if (isPostgresTarget(args.mapPath) && (args.inPlace || args.output.empty() || isPostgresTarget(args.output)))
    throw UsageError("a PostgreSQL store's map is read, not replaced: give --output OUT.vxm for the map with its clearance");
  std::error_code error;
  const bool same = !args.output.empty() && std::filesystem::equivalent(args.output, args.mapPath, error);
  if (args.inPlace && !args.output.empty() && !same)
    throw UsageError("--in-place replaces the map itself: it goes without --output (here " + args.output + ")");
  inPlace = args.inPlace || same;
  if (inPlace) {
    checkOutputPath(args.mapPath);
    return args.mapPath;
  }
  checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}});
  return args.output;
}

// Saves the map with its clearance (a TSDF map's refined to sub-voxel near the surface by
// Mapper::computeClearance where the EDT measures plain distances).
void saveClearance(Mapper& mapper, bool store, const std::string& output) {
  if (store)
    saveMapToStore(mapper.map(), output);
  else
    mapper.save(output);
}

int clearanceOfMap(const CommonOptions& common, ClearanceArgs& args) {
  refuseGpuFlagsWithCpu(common, args);
  if (!args.axisScale.empty()) args.options.axisScale = {args.axisScale[0], args.axisScale[1], args.axisScale[2]};
  bool inPlace = false;
  const std::string output = settleOutput(args, inPlace);
  const auto start = std::chrono::steady_clock::now();
  Context context(common.contextOptions());
  // A region store in, a region store out (its format follows the input's, told by content).
  const bool store = isRegionStoreFile(args.mapPath);
  MapLoadOptions load;
  load.memoryBudgetBytes = context.memoryBudgetBytes();
  load.budgetHint = context.memoryHint();
  OccupancyMap loaded = loadMapOrStore(args.mapPath, load, std::nullopt, nullptr, args.session);
  // A TSDF map: its surface is what the clearance measures from (occupied on and behind it).
  std::optional<TsdfOccupancyStats> surface;
  if (loaded.layers().has(kTsdfLayer)) surface = occupancyFromTsdf(loaded);
  Mapper mapper = Mapper::fromMap(context, std::move(loaded), {.backend = args.cpu ? MapperBackend::CpuReference : MapperBackend::Gpu});
  const OccupancyMap& map = mapper.map();
  validateClearanceSettings(args.options, map.model());
  if (args.cpu) args.options.technique = ClearanceTechnique::Exact;  // what the CPU reference computes
  const bool talk = !args.quiet && !common.json;
  std::string device = args.cpu ? "CPU reference" : context.deviceInfo().name;
  const std::string settings = args.options.describe();
  Progress progress("clearance", map.regions().size(), !args.quiet, "regions");
  ClearanceRunOptions run;
  run.onlyOutOfDate = false;  // every region, whatever the file recorded
  if (args.cacheMb) run.cacheBytes = *args.cacheMb << 20;
  run.progress = [&progress](uint64_t done, uint64_t) { progress.update(done); };
  const size_t regions = map.regions().size();
  if (talk && surface)
    std::fprintf(stderr, "voxen clearance: the map's TSDF gives its surface: %llu voxels occupied on and behind it, %llu free in front\n",
                 (unsigned long long)surface->occupied, (unsigned long long)surface->free);
  if (talk && args.cpu)
    std::fprintf(stderr, "voxen clearance: %s -> %s (%s) on the CPU reference, %zu regions\n", redactedStoreName(args.mapPath).c_str(),
                 output.c_str(), settings.c_str(), regions);
  run.onStart = [&](const GpuClearance& clearance) {
    if (!talk) return;
    std::fprintf(stderr, "voxen clearance: %s -> %s (%s) on %s, %zu regions\n", redactedStoreName(args.mapPath).c_str(), output.c_str(),
                 settings.c_str(), device.c_str(), regions);
    warnIfSlow(clearance, args.options);
  };
  const ClearanceStats stats = mapper.computeClearance(args.options, run);
  std::string profile;
  if (!args.cpu && common.profile) {
    std::ostringstream text;
    mapper.scheduler().profile().print(text);  // the Mapper records on its own scheduler
    profile = text.str();
  }
  progress.finish(stats.regions);
  if (!args.quiet) warnIfFloorDominates(mapper.map(), args.options);
  saveClearance(mapper, store, output);
  // Sub-voxel near the surface where the EDT measures plain distances (Mapper::computeClearance).
  const bool subVoxel = surface && args.options.axisScale == glm::dvec3(1.0) && !args.options.ignoreBelow && !args.options.ignoreAbove;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double perRegion = stats.regions ? stats.seconds * 1e3 / double(stats.regions) : 0.0;
  const double rate = stats.seconds > 0 ? double(stats.regions) / stats.seconds : 0.0;
  const ClearanceOptions& o = args.options;
  if (common.json) {
    printJson({{"map", redactedStoreName(args.mapPath)},
               {"output", output},
               {"in_place", inPlace},
               {"technique", clearanceTechniqueName(o.technique)},
               {"range", o.range},
               {"unknown_free", o.unknownFree},
               {"axis_scale", {o.axisScale.x, o.axisScale.y, o.axisScale.z}},
               {"ignore_below", o.ignoreBelow ? Json(*o.ignoreBelow) : Json(nullptr)},
               {"ignore_above", o.ignoreAbove ? Json(*o.ignoreAbove) : Json(nullptr)},
               {"settings", settings},
               {"regions", stats.regions},
               {"total_s", rounded(stats.seconds, 4)},
               {"ms_per_region", rounded(perRegion, 3)},
               {"regions_per_s", rounded(rate, 2)},
               {"batches", stats.batches},
               {"cache_regions", stats.cacheRegions},
               {"wall_s", rounded(wall, 4)},
               {"tsdf_surface", surface ? Json{{"occupied", surface->occupied},
                                               {"free", surface->free},
                                               {"sub_voxel", subVoxel ? Json(stats.subVoxelRefined) : Json(nullptr)}}
                                        : Json(nullptr)},
               {"device", device}});
    return 0;
  }
  std::printf("clearance of %s (%s) on %s\n", redactedStoreName(args.mapPath).c_str(), settings.c_str(), device.c_str());
  std::printf("regions %llu in %.3f s: %.2f ms per region, %.1f regions/s", (unsigned long long)stats.regions, stats.seconds,
              perRegion, rate);
  if (!args.cpu)
    std::printf(", %llu batches, region cache %llu regions", (unsigned long long)stats.batches,
                (unsigned long long)stats.cacheRegions);
  std::printf(" (wall %.2f s with loading and saving) -> %s%s\n", wall, output.c_str(), inPlace ? " (in place)" : "");
  if (subVoxel)
    std::printf("sub-voxel near the TSDF's surface: %llu voxels' clearance lowered to the surface's distance estimate\n",
                (unsigned long long)stats.subVoxelRefined);
  else if (surface)
    std::printf("whole voxels from the TSDF's surface (no sub-voxel refinement with --axis-scale, --ignore-below or "
                "--ignore-above)\n");
  if (!profile.empty()) std::printf("\nGPU time per pass:\n%s", profile.c_str());
  return 0;
}

CommandRun setupClearance(CLI::App& command) {
  auto args = std::make_shared<ClearanceArgs>();
  command.add_option("map", args->mapPath, "the map file or store")->type_name("MAP.vxm|STORE")->required();
  addSessionOption(command, args->session);
  addClearanceSettings(command, args->options, args->axisScale);
  auto* output = command.add_option("--output", args->output, "write the map with its clearance here")->type_name("OUT.vxm");
  command
      .add_flag("--in-place", args->inPlace,
                "replace MAP.vxm with the map and its clearance (atomically, once complete; --output naming MAP.vxm itself "
                "means the same)")
      ->excludes(output);
  command
      .add_option("--gpu-cache-mb", args->cacheMb,
                  "GPU memory for the regions a batch needs at the start (default 256); it grows to hold one region and "
                  "its neighbours within the range, within --memory-budget")
      ->type_name("N")
      ->check(integerIn(1, 1 << 20));
  command.add_flag("--cpu", args->cpu, "compute with the CPU reference (exact) instead of the GPU");
  command.add_flag("--quiet", args->quiet, "no settings, notes or progress on stderr");
  args->technique = command.get_option("--technique");
  return [args](const CommonOptions& options) { return clearanceOfMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"clearance", "each voxel's distance to the nearest obstacle within a range, as a map layer",
                                        &setupClearance,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

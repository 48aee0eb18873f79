// `voxen clearance MAP.vxm --range 5 [--technique roi|neighbour|openlist|exact] [--unknown-free] [--axis-scale X Y Z]
//                  [--output OUT.vxm] [--cpu]`: each voxel's distance to the nearest obstacle
// within the range, stored as the map's clearance layer (in MAP.vxm itself, replaced
// atomically, unless --output names another file).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "json_output.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map/output_file.hpp"

namespace voxen::cli {

namespace {

struct ClearanceArgs {
  std::string mapPath, output;
  ClearanceOptions options;
  std::vector<double> axisScale;
  bool cpu = false;
  GpuClearanceOptions gpu;
  CLI::Option* technique = nullptr;  // given or not: --cpu is always exact
  CLI::Option* gpuCache = nullptr;
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
  if (args.gpuCache->count() > 0) throw UsageError("--gpu-cache-mb has no effect with --cpu (the CPU reference has no GPU cache)");
}

int clearanceOfMap(const CommonOptions& common, ClearanceArgs& args) {
  refuseGpuFlagsWithCpu(common, args);
  if (!args.axisScale.empty()) args.options.axisScale = {args.axisScale[0], args.axisScale[1], args.axisScale[2]};
  const std::string output = args.output.empty() ? args.mapPath : args.output;
  if (args.output.empty() || args.output == args.mapPath) checkOutputPath(output);
  else checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}});
  const auto start = std::chrono::steady_clock::now();
  OccupancyMap map = loadMap(args.mapPath, budgetedLoad(common));
  try {
    args.options.validate(map.model());
  } catch (const Error& e) {
    throw UsageError(std::string("--range/--axis-scale: ") + e.what());
  }
  ClearanceStats stats;
  std::string device = "CPU reference";
  std::string profile;
  if (args.cpu) {
    stats = computeClearanceCpu(map, args.options);
  } else {
    Device gpu(common.device);
    ShaderLibrary library(gpu, common.libraryOptions());
    Scheduler scheduler(gpu, library);
    device = gpu.info().name;
    GpuClearance clearance(scheduler, map, args.options, args.gpu);
    stats = clearance.compute();
    if (common.profile) {
      std::ostringstream text;
      scheduler.profile().print(text);
      profile = text.str();
    }
  }
  saveMap(map, output);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double perRegion = stats.regions ? stats.seconds * 1e3 / double(stats.regions) : 0.0;
  if (common.json) {
    printJson({{"map", args.mapPath},
               {"output", output},
               {"technique", args.cpu ? "exact" : clearanceTechniqueName(args.options.technique)},
               {"range", args.options.range},
               {"unknown_free", args.options.unknownFree},
               {"axis_scale", {args.options.axisScale.x, args.options.axisScale.y, args.options.axisScale.z}},
               {"regions", stats.regions},
               {"total_s", rounded(stats.seconds, 4)},
               {"ms_per_region", rounded(perRegion, 3)},
               {"wall_s", rounded(wall, 4)},
               {"device", device}});
    return 0;
  }
  std::printf("clearance of %s (%s technique, range %g m, unknown space %s, axis scale %g %g %g) on %s\n",
              args.mapPath.c_str(), args.cpu ? "exact" : clearanceTechniqueName(args.options.technique), args.options.range,
              args.options.unknownFree ? "free" : "an obstacle", args.options.axisScale.x, args.options.axisScale.y,
              args.options.axisScale.z, device.c_str());
  std::printf("regions %llu, %.3f s, %.2f ms per region (wall %.2f s with loading and saving) -> %s\n",
              (unsigned long long)stats.regions, stats.seconds, perRegion, wall, output.c_str());
  if (!profile.empty()) std::printf("\nGPU time per pass:\n%s", profile.c_str());
  return 0;
}

CommandRun setupClearance(CLI::App& command) {
  auto args = std::make_shared<ClearanceArgs>();
  command.add_option("map", args->mapPath, "the map file")->type_name("MAP.vxm")->required();
  command.add_option("--range", args->options.range, "search range: farther obstacles are not looked for")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open))
      ->capture_default_str();
  args->technique = command
      .add_option_function<std::string>(
          "--technique", [args](const std::string& name) { args->options.technique = clearanceTechniqueNamed(name); },
          "roi: propagation inside each region, the padding's obstacles seeded onto its border (fast, approximate); "
          "neighbour: propagation over the region padded by the range (approximate); openlist: a flood fill of a "
          "work list until it empties (approximate); exact: a separable squared-distance transform (exact)")
      ->check(CLI::IsMember({"roi", "neighbour", "openlist", "exact"}))
      ->default_str("roi");
  command.add_flag("--unknown-free", args->options.unknownFree, "unobserved voxels are free (default: obstacles)");
  command.add_option("--axis-scale", args->axisScale, "multiply each axis' offsets (e.g. 1 1 0.2 nearly ignores height)")
      ->expected(3)
      ->check(numberIn(0.0, 100.0, "", LowEnd::Open))
      ->type_name("X Y Z");
  command.add_option("--output", args->output, "write the map with its clearance here (default: replace MAP.vxm)")
      ->type_name("OUT.vxm");
  command.add_flag("--cpu", args->cpu, "compute with the CPU reference (always exact) instead of the GPU");
  args->gpuCache = command
      .add_option_function<uint64_t>(
          "--gpu-cache-mb", [args](const uint64_t& mb) { args->gpu.cacheBytes = mb << 20; },
          "GPU memory for the regions being computed and their neighbours within the range (default 256)")
      ->type_name("N")
      ->check(integerIn(1, 1 << 20));
  return [args](const CommonOptions& options) { return clearanceOfMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"clearance", "each voxel's distance to the nearest obstacle within a range, as a map layer",
                                        &setupClearance,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

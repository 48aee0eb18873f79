// `voxen heightmap MAP.vxm|STORE --output HM.vxh [--robot-height 0.8] [--levels 4] [--virtual-surfaces]
//                  [--max-slope 30] [--max-step 0.2] [--clearance-margin M] [--bbox ...] [--npy PREFIX]
//                  [--gpu-cache-mb N] [--cpu] [--quiet]`: per 2D column of the map, the surfaces a robot
// can stand on (voxen/heightmap/heightmap.hpp), written as a heightmap file (and NumPy arrays
// with --npy); a summary on stdout, or JSON with --json whose compute_ms is the heightmap's
// computation alone (no loading or saving), for comparisons with other tools.
// Where: --cpu the CPU reference; --device gpu (or a named device, --gpu-cache-mb,
// --validation) the GPU; --device auto (the default) the GPU, except on a CPU driver
// (lavapipe), where the CPU reference on the machine's cores is the faster of the two for the
// same cells (BENCHMARKS.md, "voxen bench heightmap").
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/json_output.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/heightmap/heightmap_file.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/map_file.hpp"

namespace voxen::cli {

namespace {

struct HeightmapArgs {
  std::string mapPath, output, npyPrefix;
  std::string session;
  std::vector<double> bbox;
  HeightmapOptions options;
  double clearanceMargin = -1;
  std::optional<uint64_t> cacheMb;
  bool cpu = false, quiet = false;
};

struct LevelCounts {
  uint64_t cells = 0, lethal = 0, virtualCells = 0;
  std::vector<uint64_t> perLevel;
};

LevelCounts countLevels(const Heightmap& hm) {
  LevelCounts c;
  c.perLevel.assign(hm.levels(), 0);
  for (uint32_t level = 0; level < hm.levels(); ++level)
    for (uint32_t y = 0; y < hm.height(); ++y)
      for (uint32_t x = 0; x < hm.width(); ++x) {
        const gpu::HeightmapCell& cell = hm.cell(level, x, y);
        if (!(cell.flags & gpu::kLevelPresent)) continue;
        ++c.cells;
        ++c.perLevel[level];
        c.lethal += cell.cost == gpu::kCostLethal;
        c.virtualCells += (cell.flags & gpu::kLevelVirtual) != 0;
      }
  return c;
}

int heightmapOfMap(const CommonOptions& common, HeightmapArgs& args) {
  if (args.cpu) {
    common.refuseWith({"--device", "--validation", "--hot-reload", "--profile"}, "--cpu",
                      "the CPU reference opens no device and runs no GPU passes");
    if (args.cacheMb) throw UsageError("--gpu-cache-mb has no effect with --cpu (the CPU reference has no GPU cache)");
  }
  checkOutputs({{"--output", args.output}}, {{"the map", args.mapPath}});
  if (args.clearanceMargin >= 0) args.options.clearanceMargin = args.clearanceMargin;
  const std::optional<StoreBox> box = bboxOf(args.bbox);
  if (box) args.options.box = HeightmapBox{box->min, box->max};
  const auto start = std::chrono::steady_clock::now();
  std::optional<Context> context;
  if (!args.cpu) context.emplace(common.contextOptions());
  MapLoadOptions load;
  if (context) {
    load.memoryBudgetBytes = context->memoryBudgetBytes();
    load.budgetHint = context->memoryHint();
  }
  const OccupancyMap map = loadMapOrStore(args.mapPath, load, box, args.quiet ? nullptr : "voxen heightmap", args.session);
  args.options.validate(map.model().resolution);
  // --device auto on a CPU driver: the CPU reference, the same cells, faster there.
  // (--gpu-cache-mb asks for the GPU too.)
  const bool autoCpu =
      !args.cpu && !args.cacheMb && deviceLeftToAuto(common) && context->deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (autoCpu) args.cpu = true;
  const std::string device = args.cpu ? (autoCpu ? "CPU reference (--device auto: " + context->deviceInfo().name +
                                                       " is a CPU driver, where the CPU reference is faster; --device gpu forces it)"
                                                 : std::string("CPU reference"))
                                      : context->deviceInfo().name;
  const auto computeStart = std::chrono::steady_clock::now();
  GpuHeightmapStats stats;
  const Heightmap hm = args.cpu ? computeHeightmap(map, args.options)
                                : computeHeightmapGpu(context->scheduler(), map, args.options,
                                                      args.cacheMb ? (*args.cacheMb << 20) : (256ull << 20), &stats);
  const double computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - computeStart).count();
  saveHeightmap(hm, args.output);
  std::vector<std::filesystem::path> arrays;
  if (!args.npyPrefix.empty()) arrays = writeHeightmapArrays(hm, args.npyPrefix);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const LevelCounts counts = countLevels(hm);
  const double columns = double(hm.width()) * hm.height();
  if (common.json) {
    Json files = Json::array();
    for (const auto& f : arrays) files.push_back(f.string());
    printJson({{"map", redactedStoreName(args.mapPath)},
               {"output", args.output},
               {"device", device},
               {"path", args.cpu ? (autoCpu ? "cpu (device auto)" : "cpu") : "gpu"},
               {"width", hm.width()},
               {"height", hm.height()},
               {"levels", hm.levels()},
               {"resolution", hm.resolution()},
               {"origin", {hm.columnMinX(0), hm.rowMinY(0)}},
               {"robot_height", args.options.robotHeight},
               {"virtual_surfaces", args.options.virtualSurfaces},
               {"cells_with_a_level", counts.cells},
               {"cells_per_level", counts.perLevel},
               {"lethal_cells", counts.lethal},
               {"virtual_cells", counts.virtualCells},
               {"compute_ms", rounded(computeMs, 3)},
               {"gpu_ms", args.cpu ? Json(nullptr) : Json(rounded(stats.gpuMs, 3))},
               {"chunks", stats.chunks},
               {"arrays", files},
               {"wall_s", rounded(wall, 4)}});
    return 0;
  }
  std::printf("heightmap of %s on %s: %u x %u columns at %g m, %u levels (robot %g m)\n", redactedStoreName(args.mapPath).c_str(),
              device.c_str(), hm.width(), hm.height(), hm.resolution(), hm.levels(), args.options.robotHeight);
  std::printf("cells with a level %llu (%.1f%% of columns on level 0), lethal %llu, virtual %llu\n", (unsigned long long)counts.cells,
              columns > 0 ? 100.0 * double(counts.perLevel[0]) / columns : 0.0, (unsigned long long)counts.lethal,
              (unsigned long long)counts.virtualCells);
  std::printf("computed in %.2f ms", computeMs);
  if (!args.cpu) std::printf(" (GPU passes %.2f ms, %llu chunks)", stats.gpuMs, (unsigned long long)stats.chunks);
  std::printf(", wall %.2f s -> %s\n", wall, args.output.c_str());
  for (const auto& f : arrays) std::printf("  %s\n", f.string().c_str());
  return 0;
}

CommandRun setupHeightmap(CLI::App& command) {
  auto args = std::make_shared<HeightmapArgs>();
  command.add_option("map", args->mapPath, "the map file or store")->type_name("MAP.vxm|STORE")->required();
  addSessionOption(command, args->session);
  command.add_option("--output", args->output, "write the heightmap here")->type_name("HM.vxh")->required();
  command.add_option("--robot-height", args->options.robotHeight, "metres of room a surface needs above it to be a level")
      ->type_name("METRES")
      ->capture_default_str()
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open));
  command.add_option("--levels", args->options.levels, "levels kept per column, the lowest ones")
      ->type_name("N")
      ->capture_default_str()
      ->check(integerIn(1, gpu::kMaxHeightmapLevels));
  command.add_flag("--virtual-surfaces", args->options.virtualSurfaces,
                   "unknown voxels under observed free ones are surfaces too (marked virtual), where a sensor could not see "
                   "the ground");
  command.add_option("--max-slope", args->options.maxSlopeDegrees, "steeper is lethal")
      ->type_name("DEGREES")
      ->capture_default_str()
      ->check(numberIn(0.0, 90.0, "degrees", LowEnd::Closed, HighEnd::Open));
  command.add_option("--max-step", args->options.maxStep, "a larger step to a neighbour is lethal")
      ->type_name("METRES")
      ->capture_default_str()
      ->check(numberIn(0.0, 1e4, "metres"));
  command.add_option("--clearance-margin", args->clearanceMargin,
                     "room beyond the robot's height below which the cost rises toward 100 (default: half the robot height)")
      ->type_name("METRES")
      ->check(numberIn(0.0, 1e4, "metres"));
  addBboxOption(command, args->bbox, "only the columns and voxels whose centres lie in this box");
  command.add_option("--npy", args->npyPrefix,
                     "also write PREFIX-height.npy, -clearance.npy, -slope.npy, -cost.npy (float32, levels x rows x columns) "
                     "and PREFIX.json (origin, resolution)")
      ->type_name("PREFIX");
  command.add_option("--gpu-cache-mb", args->cacheMb, "GPU memory for the map's regions of a chunk of columns (default 256)")
      ->type_name("N")
      ->check(integerIn(1, 1 << 20));
  command.add_flag("--cpu", args->cpu, "compute with the CPU reference instead of the GPU (the same cells)");
  command.add_flag("--quiet", args->quiet, "no notes on stderr");
  return [args](const CommonOptions& options) { return heightmapOfMap(options, *args); };
}

}  // namespace

static CommandRegistration registration{"heightmap",
                                        "the surfaces a robot can stand on per 2D column, in levels, with slope, steps and cost",
                                        &setupHeightmap, Uses::Gpu | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

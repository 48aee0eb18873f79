// `voxen bench heightmap --live`: a heightmap kept current while the README run is mapped
// (HeightmapTracker, voxen/heightmap/heightmap_tracker.hpp). The run's first scans are mapped
// on the Mapper, the heightmap is computed whole; then after each of the last --probes scans
// the tracker's update (only the region columns that scan changed) is timed beside the whole
// heightmap computed again, with the CPU reference and on the GPU, in the same run, and the
// kept cells are compared with the whole CPU heightmap's byte for byte.
#include "bench/bench_heightmap_live.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap_tracker.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/mapper.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct Probe {
  uint64_t regionColumns = 0;  // recomputed by the update
  uint64_t neighbourCells = 0;
  bool whole = false;
  bool exact = false;
  double updateMs = 0, wholeCpuMs = 0, wholeGpuMs = 0;
};

bool sameCells(const Heightmap& a, const Heightmap& b) {
  return a.grid() == b.grid() && a.cells().size() == b.cells().size() &&
         std::memcmp(a.cells().data(), b.cells().data(), a.cells().size() * sizeof(gpu::HeightmapCell)) == 0 &&
         a.columnFlags() == b.columnFlags();
}

// The scan's rays that returned (the cloud `voxen generate` writes holds only those).
std::vector<Ray> returns(const LidarScan& scan) {
  std::vector<Ray> rays;
  rays.reserve(scan.returns);
  for (size_t i = 0; i < scan.rays.size(); ++i)
    if (!scan.noReturn[i]) rays.push_back(scan.rays[i]);
  return rays;
}

}  // namespace

int benchHeightmapLive(const CommonOptions& options, const BenchHeightmapLiveArgs& args) {
  LidarConfig lidar;  // 64 rings x 1024 columns, seed 1: the README run
  lidar.scans = args.scans;
  lidar.speed = 3.0;
  const int probes = std::min(args.probes, args.scans - 1);
  if (probes < 1) throw UsageError("--probes: the run needs at least one scan mapped before the probes (raise --scans)");
  try {
    checkMemoryBudget(uint64_t(lidar.raysPerScan()) * sizeof(Ray) * 2 + (600ull << 20), options.memoryBudgetBytes(),
                      "one scan's rays and the map of the README run", options.memoryBudgetHint());
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  Context context(options.contextOptions());
  Mapper mapper(context, {});
  HeightmapOptions heightmapOptions;
  HeightmapTracker tracker(heightmapOptions);
  std::vector<Probe> results;
  const int firstProbe = args.scans - probes;
  const auto mappingStart = Clock::now();
  generateLidarScans(SyntheticScene::generate(1), lidar, [&](const LidarScan& scan) {
    mapper.integrate(returns(scan));
    if (scan.index + 1 < firstProbe) return;
    const OccupancyMap& map = mapper.map();  // synced: the host map holds the scan
    if (scan.index + 1 == firstProbe) {  // the heightmap so far, whole (and the GPU's pipelines made)
      tracker.update(map);
      computeHeightmapGpu(mapper.scheduler(), map, heightmapOptions);
      if (!options.json)
        std::fprintf(stderr, "bench heightmap --live: %d scans mapped in %.1f s; %d probes follow\n", firstProbe,
                     secondsSince(mappingStart), probes);
      return;
    }
    Probe p;
    const HeightmapUpdate u = tracker.update(map);
    p.updateMs = u.ms;
    p.regionColumns = u.regionColumns;
    p.neighbourCells = u.neighbourCells;
    p.whole = u.whole;
    auto start = Clock::now();
    const Heightmap whole = computeHeightmap(map, heightmapOptions);
    p.wholeCpuMs = secondsSince(start) * 1e3;
    start = Clock::now();
    computeHeightmapGpu(mapper.scheduler(), map, heightmapOptions);
    p.wholeGpuMs = secondsSince(start) * 1e3;
    p.exact = sameCells(whole, tracker.heightmap());
    results.push_back(p);
  });
  const Heightmap& hm = tracker.heightmap();
  const uint64_t gridRegionColumns = uint64_t((hm.width() + 31) / 32) * ((hm.height() + 31) / 32);
  auto medianOf = [&](double Probe::*field) {
    std::vector<double> v;
    for (const Probe& p : results) v.push_back(p.*field);
    return median(v);
  };
  const bool allExact = std::all_of(results.begin(), results.end(), [](const Probe& p) { return p.exact; });
  const std::string deviceName = mapper.scheduler().device().info().name;
  if (options.json) {
    printJson(Json{{"scans", args.scans},
                   {"probes", probes},
                   {"columns", uint64_t(hm.width()) * hm.height()},
                   {"exact", allExact},
                   {"update_ms", rounded(medianOf(&Probe::updateMs), 3)},
                   {"whole_cpu_ms", rounded(medianOf(&Probe::wholeCpuMs), 3)},
                   {"whole_gpu_ms", rounded(medianOf(&Probe::wholeGpuMs), 3)},
                   {"per_probe", jsonArray(results, [](const Probe& p) -> Json {
                      return {{"update_ms", rounded(p.updateMs, 3)},
                              {"region_columns", p.regionColumns},
                              {"neighbour_cells", p.neighbourCells},
                              {"whole", p.whole},
                              {"whole_cpu_ms", rounded(p.wholeCpuMs, 3)},
                              {"whole_gpu_ms", rounded(p.wholeGpuMs, 3)},
                              {"exact", p.exact}};
                    })},
                   {"device", deviceName}});
    return allExact ? 0 : 1;
  }
  std::printf("voxen bench heightmap --live on %s: the README run (64 x 1024 lidar at 3 m/s), %d scans; after each of the "
              "last %d, the heightmap (0.1 m, robot 0.8 m, 4 levels, %u x %u columns)\n\n",
              deviceName.c_str(), args.scans, probes, hm.width(), hm.height());
  const TextTable table({{"scan", 6}, {"columns redone", 15}, {"cells", 9}, {"update", 9}, {"whole CPU", 10}, {"whole GPU", 10},
                         {"CPU/update", 11}, {"exact", 6}});
  table.printHead();
  for (size_t i = 0; i < results.size(); ++i) {
    const Probe& p = results[i];
    table.printRow({std::to_string(firstProbe + int(i) + 1),
                    std::to_string(p.regionColumns) + " of " + std::to_string(gridRegionColumns) + (p.whole ? " (whole)" : ""),
                    withCommas(p.neighbourCells), fixed(p.updateMs, 2, "ms"), fixed(p.wholeCpuMs, 2, "ms"),
                    fixed(p.wholeGpuMs, 2, "ms"), fixed(p.wholeCpuMs / std::max(p.updateMs, 1e-9), 1, "x"),
                    p.exact ? "yes" : "NO"});
  }
  std::printf("\nmedians: update %.2f ms, whole CPU %.2f ms, whole GPU %.2f ms. update: HeightmapTracker::update after the scan "
              "(region columns whose regions changed, the neighbour pass around them); whole: computeHeightmap (CPU "
              "reference, the machine's cores) and computeHeightmapGpu on the same map; exact: the kept cells equal the whole "
              "CPU heightmap's byte for byte.\n",
              medianOf(&Probe::updateMs), medianOf(&Probe::wholeCpuMs), medianOf(&Probe::wholeGpuMs));
  return allExact ? 0 : 1;
}

}  // namespace voxen::cli

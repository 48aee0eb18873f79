// `voxen check`'s heightmap rows: the GPU's heightmap of a mapped synthetic lidar run against
// the CPU reference, cell for cell and bit for bit (every value is an integer: the order of
// the GPU's work cannot change it), with one and with several levels and virtual surfaces,
// chunked through a cache smaller than the map.
#include <cstring>

#include "check_row.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

namespace {

OccupancyMap lidarRun(const CheckContext& context) {
  LidarConfig lidar;
  lidar.rings = context.sized(32, 64);
  lidar.columns = context.sized(512, 1024);
  lidar.scans = context.sized(2, 20);
  lidar.speed = context.sized(1.0, 4.0);
  OccupancyModel model;
  model.resolution = 0.1;
  OccupancyMap map(model);
  CpuIntegrator(map).integrate(generateLidarRays(SyntheticScene::generate(5), lidar));
  return map;
}

void compare(CheckContext& context, const OccupancyMap& map, const std::string& name, const HeightmapOptions& options) {
  runRow(context, "heightmap", name, [&](RowResult& row) {
    Heightmap cpu = computeHeightmap(map, options);
    GpuHeightmapStats stats;
    // A cache of a quarter of the map's regions (at least one column's): several chunks.
    const uint64_t cacheBytes = std::max<uint64_t>(map.regions().size() / 4, 8) * RegionCache::bytesPerRegion(map);
    const Heightmap gpu = computeHeightmapGpu(context.scheduler, map, options, cacheBytes, &stats);
    if (context.breakReferences()) {  // one cell's height one unit off: the comparison must see it
      for (gpu::HeightmapCell& cell : cpu.cells())
        if (cell.flags & gpu::kLevelPresent) {
          cell.height += 1;
          break;
        }
    }
    uint64_t present = 0, differ = 0;
    for (size_t i = 0; i < cpu.cells().size(); ++i) {
      present += (cpu.cells()[i].flags & gpu::kLevelPresent) != 0;
      differ += std::memcmp(&cpu.cells()[i], &gpu.cells()[i], sizeof(gpu::HeightmapCell)) != 0;
    }
    row.figure("columns", double(cpu.width()) * cpu.height(), "{} columns");
    row.figure("cells_with_a_level", double(present), "{} cells with a level");
    row.figure("chunks", double(stats.chunks), "{} chunks");
    row.figure("differing_cells", double(differ), "{} differ from the CPU");
    row.require(present > 1000, "only " + std::to_string(present) + " cells with a level");
    row.require(stats.chunks > 1, "one chunk: the cache held every region, so chunking went untested");
    row.require(differ == 0 && cpu.columnFlags() == gpu.columnFlags(),
                std::to_string(differ) + " cells (or column flags) differ from the CPU reference");
  });
}

}  // namespace

void checkHeightmap(CheckContext& context) {
  const OccupancyMap map = lidarRun(context);
  HeightmapOptions ground;
  ground.levels = 1;
  compare(context, map, "one level, bit for bit, in chunks", ground);
  HeightmapOptions levels;
  levels.levels = 8;
  levels.robotHeight = 0.3;
  levels.virtualSurfaces = true;
  compare(context, map, "eight levels with virtual surfaces, bit for bit, in chunks", levels);
}

}  // namespace voxen

// The heightmap on the GPU: the column pass over chunks of region columns whose regions fit a
// read-only region cache (the host lists each column's slots by z region), then the neighbour
// pass over the whole grid, then one readback of the cells and column flags.
#include <algorithm>

#include "heightmap_internal.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

namespace {

struct Chunk {
  std::vector<size_t> columns;     // indices into the grid's region columns
  std::vector<RegionKey> regions;  // the map's regions of those columns within the band
};

// Each region column's regions within the band [regionZLow, regionZHigh], bottom up.
std::vector<std::vector<RegionKey>> regionStacks(const OccupancyMap& map, const std::vector<RegionKey>& columns,
                                                 int32_t regionZLow, int32_t regionZHigh) {
  std::vector<std::vector<RegionKey>> stacks(columns.size());
  for (size_t c = 0; c < columns.size(); ++c)
    for (int32_t rz = regionZLow; rz <= regionZHigh; ++rz)
      if (map.findRegion({columns[c].x, columns[c].y, rz})) stacks[c].push_back({columns[c].x, columns[c].y, rz});
  return stacks;
}

// Region columns grouped in order so that each group's regions fit `slots` (every stack does:
// the cache is sized for the largest).
std::vector<Chunk> planChunks(const std::vector<std::vector<RegionKey>>& stacks, size_t slots) {
  std::vector<Chunk> chunks(1);
  for (size_t c = 0; c < stacks.size(); ++c) {
    if (chunks.back().regions.size() + stacks[c].size() > slots) chunks.emplace_back();
    chunks.back().columns.push_back(c);
    chunks.back().regions.insert(chunks.back().regions.end(), stacks[c].begin(), stacks[c].end());
  }
  return chunks;
}

double passMs(const Scheduler& scheduler, const std::string& name) {
  const auto& passes = scheduler.profile().passes();
  const auto it = passes.find(name);
  return it == passes.end() ? 0.0 : it->second.totalMs;
}

}  // namespace

Heightmap computeHeightmapGpu(Scheduler& scheduler, const OccupancyMap& map, const HeightmapOptions& options,
                              uint64_t cacheBytes, GpuHeightmapStats* stats) {
  const HeightmapGrid grid = heightmapGrid(map, options);
  const HeightmapLimits limits = heightmapLimits(options, grid.resolution);
  Heightmap hm(grid, options);
  const int32_t n = map.regionSize();
  const int32_t regionZLow = floorDiv(grid.zLow, n), regionZHigh = floorDiv(grid.zHigh, n);
  const uint32_t regionZCount = uint32_t(regionZHigh - regionZLow + 1);
  const std::vector<RegionKey> columns = heightmapRegionColumns(grid, n);

  const std::vector<std::vector<RegionKey>> stacks = regionStacks(map, columns, regionZLow, regionZHigh);
  size_t mostRegions = 1;
  for (const std::vector<RegionKey>& stack : stacks) mostRegions = std::max(mostRegions, stack.size());
  const uint64_t perRegion = RegionCache::bytesPerRegion(map);
  const uint64_t wanted = std::max<uint64_t>(map.regions().size(), 1) * perRegion;
  RegionCache cache(scheduler, map, std::max(std::min(cacheBytes, wanted), uint64_t(mostRegions) * perRegion));
  if (mostRegions > cache.slotCount())
    throw SettingError(SettingError::Kind::Change, "GpuHeightmap::cacheBytes", "the GPU region cache",
                       "one region column of the heightmap holds " + std::to_string(mostRegions) +
                           " regions, more than the GPU cache's " + std::to_string(cache.slotCount()) + ": raise {}");
  const std::vector<Chunk> chunks = planChunks(stacks, cache.slotCount());

  Device& device = scheduler.device();
  const uint64_t cellBytes = uint64_t(hm.cells().size()) * sizeof(gpu::HeightmapCell);
  const uint64_t flagBytes = uint64_t(hm.columnFlags().size()) * 4;
  Buffer cells(device, "heightmap cells", cellBytes), flags(device, "heightmap column flags", flagBytes);
  size_t mostColumns = 1;
  for (const Chunk& c : chunks) mostColumns = std::max(mostColumns, c.columns.size());
  Buffer columnList(device, "heightmap region columns", mostColumns * 8);
  Buffer slotTable(device, "heightmap region slots", mostColumns * regionZCount * 4);

  const auto columnsKernel = scheduler.library().kernel("heightmap/heightmap_columns.comp");
  const auto neighboursKernel = scheduler.library().kernel("heightmap/heightmap_neighbours.comp");
  const double msBefore = passMs(scheduler, "heightmap columns") + passMs(scheduler, "heightmap neighbours");
  const bool useMean = map.layers().has(kVoxelMeanLayer);
  uint64_t batch = 0;
  for (const Chunk& chunk : chunks) {
    cache.makeResident(chunk.regions, ++batch);
    std::vector<int32_t> xy;
    std::vector<int32_t> slots(chunk.columns.size() * regionZCount, -1);
    for (size_t c = 0; c < chunk.columns.size(); ++c) {
      xy.push_back(columns[chunk.columns[c]].x);
      xy.push_back(columns[chunk.columns[c]].y);
      for (const RegionKey& key : stacks[chunk.columns[c]])
        slots[c * regionZCount + size_t(key.z - regionZLow)] = int32_t(cache.slotOf(key));
    }
    const BufferRange columnRange = columnList.range(0, xy.size() * 4), slotRange = slotTable.range(0, slots.size() * 4);
    scheduler.upload(columnRange, xy.data(), xy.size() * 4);
    scheduler.upload(slotRange, slots.data(), slots.size() * 4);
    gpu::HeightmapColumnPush push{};
    push.layers = cache.layerTableAddress();
    push.regionSlots = slotRange.address;
    push.regionColumns = columnRange.address;
    push.cells = cells.address();
    push.columnFlags = flags.address();
    push.regionSize = n;
    push.regionColumnCount = uint32_t(chunk.columns.size());
    push.regionZLow = regionZLow;
    push.regionZCount = regionZCount;
    push.gridX = grid.gridX;
    push.gridY = grid.gridY;
    push.width = grid.width;
    push.height = grid.height;
    push.zLow = grid.zLow;
    push.zHigh = grid.zHigh;
    push.levels = grid.levels;
    push.requiredRoom = limits.requiredRoom;
    push.occupiedLogOdds = map.model().thresholdValue();
    push.virtualSurfaces = options.virtualSurfaces ? 1u : 0u;
    push.useMean = useMean ? 1u : 0u;
    std::vector<BufferUse> uses{reads(cache.layerTableRange()), reads(columnRange), reads(slotRange), writes(cells.range()),
                                writes(flags.range())};
    for (const BufferRange& pool : cache.poolRanges()) uses.push_back(reads(pool));
    scheduler.dispatchThreads({"heightmap columns", columnsKernel.get(), {}, push, std::move(uses)},
                              uint64_t(chunk.columns.size()) * uint64_t(n) * uint64_t(n));
  }
  gpu::HeightmapNeighbourPush neighbours{};
  neighbours.cells = cells.address();
  neighbours.width = grid.width;
  neighbours.height = grid.height;
  neighbours.levels = grid.levels;
  neighbours.requiredRoom = limits.requiredRoom;
  neighbours.marginRoom = limits.marginRoom;
  neighbours.maxStepUnits = limits.maxStepUnits;
  neighbours.maxGradientSquared = limits.maxGradientSquared;
  scheduler.dispatchThreads({"heightmap neighbours", neighboursKernel.get(), {}, neighbours, {readsWrites(cells.range())}},
                            uint64_t(grid.width) * grid.height * grid.levels);
  auto cellsBack = scheduler.readbackInto(cells.range(), std::span<gpu::HeightmapCell>(hm.cells()));
  auto flagsBack = scheduler.readbackInto(flags.range(), std::span<uint32_t>(hm.columnFlags()));
  cellsBack.wait();
  flagsBack.wait();
  if (stats) {
    stats->chunks = chunks.size();
    stats->gpuMs = passMs(scheduler, "heightmap columns") + passMs(scheduler, "heightmap neighbours") - msBefore;
  }
  return hm;
}

}  // namespace voxen

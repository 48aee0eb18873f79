// Mapper::runPass: a program's own MapPass over the Mapper's map, in chunks of regions that
// fit the GPU region cache together with the regions around them that the pass reads.
#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "mapper_impl.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/map_pass.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

namespace {

using KeySet = std::unordered_set<RegionKey, RegionKeyHash>;

// Keys in z, y, x order: neighbours land in the same chunk, and a chunk's thread order does
// not depend on hashing.
bool regionOrder(const RegionKey& a, const RegionKey& b) { return std::tie(a.z, a.y, a.x) < std::tie(b.z, b.y, b.x); }

// The map's regions within `reach` regions of `key` (itself included), as a pass with that
// halo reads them.
std::vector<RegionKey> regionsAround(const OccupancyMap& map, const RegionKey& key, int32_t reach) {
  std::vector<RegionKey> around;
  for (int32_t dz = -reach; dz <= reach; ++dz)
    for (int32_t dy = -reach; dy <= reach; ++dy)
      for (int32_t dx = -reach; dx <= reach; ++dx) {
        const RegionKey k{key.x + dx, key.y + dy, key.z + dz};
        if (map.findRegion(k)) around.push_back(k);
      }
  return around;
}

// Regions grouped so that each group and its halo fit `slots` cache slots, taken in
// regionOrder so that halos are shared rather than loaded again.
struct PassChunk {
  std::vector<RegionKey> regions;     // the pass's threads run over these
  std::vector<RegionKey> neighbours;  // resident beside them, read only
};

std::vector<PassChunk> chunkRegions(const OccupancyMap& map, int32_t reach, size_t slots, uint64_t cacheBytes) {
  std::vector<RegionKey> keys;
  keys.reserve(map.regions().size());
  for (const auto& [key, region] : map.regions()) keys.push_back(key);
  std::sort(keys.begin(), keys.end(), regionOrder);
  std::vector<PassChunk> chunks;
  KeySet own, resident;
  auto close = [&] {
    if (own.empty()) return;
    PassChunk chunk;
    for (const RegionKey& k : resident) (own.contains(k) ? chunk.regions : chunk.neighbours).push_back(k);
    chunks.push_back(std::move(chunk));
    own.clear();
    resident.clear();
  };
  for (const RegionKey& key : keys) {
    const std::vector<RegionKey> around = regionsAround(map, key, reach);
    if (around.size() > slots)
      throw Error("Mapper::runPass: region (" + std::to_string(key.x) + "," + std::to_string(key.y) + "," +
                  std::to_string(key.z) + ") and the " + std::to_string(around.size() - 1) +
                  " regions of the map around it that the pass reads need " + std::to_string(around.size()) +
                  " slots of the GPU region cache; GpuIntegratorOptions::cacheBytes (" + std::to_string(cacheBytes >> 20) +
                  " MiB) holds " + std::to_string(slots) + ": raise it, or read less far (MapPass::haloVoxels)");
    size_t added = 0;
    for (const RegionKey& k : around) added += !resident.contains(k);
    if (resident.size() + added > slots) close();
    own.insert(key);
    resident.insert(around.begin(), around.end());
  }
  close();
  for (PassChunk& chunk : chunks) {  // collected from a hash set
    std::sort(chunk.regions.begin(), chunk.regions.end(), regionOrder);
    std::sort(chunk.neighbours.begin(), chunk.neighbours.end(), regionOrder);
  }
  return chunks;
}

}  // namespace

MapPassStats Mapper::runPass(MapPass& pass) {
  Impl& m = *impl_;
  const std::string name = pass.name();
  const std::vector<LayerId> written = pass.writtenLayers();
  const std::shared_ptr<Kernel> kernel = m.context->shaders().kernel(pass.kernel());
  // The integrator's cache holds copies of layers the pass may write, and its pools were
  // sized for the layers the map has now: it finishes and goes (the next rays make another).
  m.retireGpu();
  m.gpuStale = false;
  for (LayerId id : written)
    if (!m.map.layout().has(id)) m.map.addLayer(id);
  m.queriesStale = true;
  m.changedSincePublished = true;

  MapPassStats stats;
  stats.regions = m.map.regions().size();
  if (stats.regions == 0) return stats;
  const int32_t regionSize = m.map.regionSize();
  const int32_t reach = int32_t((uint64_t(pass.haloVoxels()) + uint64_t(regionSize) - 1) / uint64_t(regionSize));
  const uint64_t perRegion = RegionCache::bytesPerRegion(m.map);
  const uint64_t configured = m.run.gpu.cacheBytes;
  const size_t slots = size_t(std::max<uint64_t>(configured / perRegion, 1));
  const std::vector<PassChunk> chunks = chunkRegions(m.map, reach, slots, configured);
  size_t mostResident = 0;
  for (const PassChunk& chunk : chunks) mostResident = std::max(mostResident, chunk.regions.size() + chunk.neighbours.size());

  Scheduler& scheduler = m.scheduler();
  RegionCache cache(scheduler, m.map, mostResident * perRegion);
  for (const PassChunk& chunk : chunks) {
    const MapPassBinding binding = bindMapPass(scheduler, cache, chunk.regions, written, chunk.neighbours);
    scheduler.dispatchThreads(mapPass(binding, name, *kernel, pass.pushConstants(binding.gpu), pass.extraUses()),
                              binding.voxels);
    // The regions it wrote changed: copied back when evicted or synced, even where a region
    // source holds the old values.
    for (const RegionKey& key : chunk.regions) m.map.markValuesChanged(key);
    // Each chunk in a batch of its own: the next chunk's regions may evict this one's.
    scheduler.submit();
    ++stats.chunks;
    stats.neighbourLoads += chunk.neighbours.size();
    stats.voxels += binding.voxels;
  }
  cache.syncAndRelease();
  return stats;
}

}  // namespace voxen

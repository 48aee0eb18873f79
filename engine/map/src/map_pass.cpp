#include "voxen/map/map_pass.hpp"

#include <algorithm>

#include "voxen/host/error.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

MapPassBinding bindMapPass(Scheduler& scheduler, RegionCache& cache, std::span<const RegionKey> regions,
                           std::initializer_list<LayerId> writtenLayers) {
  return bindMapPass(scheduler, cache, regions, std::span<const LayerId>(writtenLayers.begin(), writtenLayers.size()), {});
}

MapPassBinding bindMapPass(Scheduler& scheduler, RegionCache& cache, std::span<const RegionKey> regions,
                           std::span<const LayerId> writtenLayers, std::span<const RegionKey> neighbours) {
  std::vector<RegionKey> resident(regions.begin(), regions.end());
  resident.insert(resident.end(), neighbours.begin(), neighbours.end());
  if (resident.size() > cache.slotCount())
    throw Error("a map pass over " + std::to_string(regions.size()) + " regions" +
                (neighbours.empty() ? std::string() : " and " + std::to_string(neighbours.size()) + " around them") +
                " needs a region cache of as many slots; it has " + std::to_string(cache.slotCount()));
  for (LayerId id : writtenLayers)
    if (!cache.poolRange(id))
      throw Error("a map pass writes layer '" + layerType(id).name + "', which the map does not have: add it to the map " +
                  "before creating the region cache");
  // Stamped with the batch being recorded: passes bound in one batch keep each other's
  // regions resident, and later batches may evict them.
  cache.makeResident(resident, scheduler.lastSubmitted() + 1);

  MapPassBinding binding;
  std::vector<gpu::PassRegion> list;
  list.reserve(regions.size());
  for (const RegionKey& key : regions) list.push_back({key.x, key.y, key.z, int32_t(cache.slotOf(key))});
  const uint64_t listBytes = std::max<uint64_t>(list.size(), 1) * sizeof(gpu::PassRegion);
  const BufferRange listRange = scheduler.transient(listBytes, 16);
  if (!list.empty()) scheduler.upload(listRange, list.data(), list.size() * sizeof(gpu::PassRegion));

  binding.gpu.layers = cache.layerTableAddress();
  binding.gpu.regionTable = cache.tableAddress();
  binding.gpu.regions = listRange.address;
  binding.gpu.regionCount = uint32_t(list.size());
  binding.gpu.tableMask = cache.tableMask();
  binding.gpu.maxProbe = cache.maxProbe();
  binding.gpu.regionSize = cache.regionSize();
  binding.voxels = uint64_t(list.size()) * cache.voxelsPerRegion();
  binding.uses = {reads(cache.layerTableRange()), reads(cache.tableRange()), reads(listRange)};
  for (LayerId id : cache.layerIds()) {
    const bool written = std::find(writtenLayers.begin(), writtenLayers.end(), id) != writtenLayers.end();
    binding.uses.push_back(written ? readsWrites(*cache.poolRange(id)) : reads(*cache.poolRange(id)));
  }
  return binding;
}

Pass mapPass(const MapPassBinding& binding, std::string name, const Kernel& kernel, PushConstants push,
             std::vector<BufferUse> extraUses) {
  Pass pass{std::move(name), &kernel, {1, 1, 1}, push, binding.uses};
  pass.uses.insert(pass.uses.end(), extraUses.begin(), extraUses.end());
  return pass;
}

}  // namespace voxen

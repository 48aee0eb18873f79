#include "voxen/clearance/gpu_clearance.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

GpuClearance::GpuClearance(Scheduler& scheduler, OccupancyMap& map, ClearanceOptions options, GpuClearanceOptions gpuOptions)
    : scheduler_(scheduler), map_(map), options_(options), gpuOptions_(gpuOptions) {
  options_.validate(map.model());
  map_.addLayer(clearanceLayer());  // before the cache, which has a pool per layer
  cache_ = std::make_unique<RegionCache>(scheduler, map_, gpuOptions_.cacheBytes);
  const size_t neighbourhood = regionsWithinRange({0, 0, 0}, map.model(), options_).size();
  if (cache_->slotCount() < neighbourhood)
    throw Error("clearance: the GPU cache holds " + std::to_string(cache_->slotCount()) + " regions, fewer than the " +
                std::to_string(neighbourhood) + " a region and its neighbours within the range need: raise the cache size");
  const glm::ivec3 pad = options_.padding(map.model());
  const uint64_t n = uint64_t(map.regionSize());
  const uint64_t blockBytes = 4 * (n + 2 * pad.x) * (n + 2 * pad.y) * (n + 2 * pad.z);
  maxBlocks_ = uint32_t(std::max<uint64_t>(1, gpuOptions_.fieldBytes / blockBytes));
  field_ = Buffer(scheduler.device(), "clearance field", blockBytes * maxBlocks_);
  targets_ = Buffer(scheduler.device(), "clearance targets", uint64_t(maxBlocks_) * 16);
  ShaderLibrary& library = scheduler.library();
  seedKernel_ = library.kernel("clearance/clearance_seed.comp");
  envelopeKernel_ = library.kernel("clearance/clearance_envelope.comp");
}

GpuClearance::~GpuClearance() = default;

// One batch: the targets' slots uploaded, then the x, y and z passes over their blocks.
void GpuClearance::recordBatch(const std::vector<RegionKey>& targets, const std::vector<RegionKey>& resident) {
  cache_->makeResident(resident, ++batchStamp_);
  std::vector<int32_t> entries;
  for (const RegionKey& key : targets) entries.insert(entries.end(), {key.x, key.y, key.z, int32_t(cache_->slotOf(key))});
  scheduler_.upload(targets_.range(0, entries.size() * 4), entries.data(), entries.size() * 4);
  const OccupancyModel& model = map_.model();
  const glm::ivec3 pad = options_.padding(model);
  const int n = model.regionSize;
  gpu::ClearancePush push{};
  push.layers = cache_->layerTableAddress();
  push.regionTable = cache_->tableAddress();
  push.targets = targets_.address();
  push.field = field_.address();
  push.tableMask = cache_->tableMask();
  push.maxProbe = cache_->maxProbe();
  push.regionSize = n;
  push.clearanceLayer = clearanceLayer();
  push.padX = pad.x, push.padY = pad.y, push.padZ = pad.z;
  push.blocks = uint32_t(targets.size());
  float weights[3];
  for (int a = 0; a < 3; ++a) {
    const double step = model.resolution * options_.axisScale[a];
    weights[a] = float(step * step);
  }
  push.weightX = weights[0], push.weightY = weights[1], push.weightZ = weights[2];
  push.rangeSquared = float(options_.range * options_.range);
  const float threshold = model.thresholdValue();
  std::memcpy(&push.threshold, &threshold, 4);
  push.unknownFree = options_.unknownFree ? 1u : 0u;
  std::vector<BufferUse> uses{reads(cache_->tableRange()), reads(cache_->layerTableRange()), reads(targets_.range()),
                              readsWrites(field_.range())};
  for (const BufferRange& pool : cache_->poolRanges()) uses.push_back(readsWrites(pool));
  const uint64_t blocks = targets.size();
  const uint64_t by = uint64_t(n + 2 * pad.y), bz = uint64_t(n + 2 * pad.z);
  push.axis = 0;
  scheduler_.dispatchThreads({"clearance x (obstacles)", seedKernel_.get(), {}, push, uses}, by * bz * blocks);
  push.axis = 1;
  scheduler_.dispatchThreads({"clearance y", envelopeKernel_.get(), {}, push, uses}, uint64_t(n) * bz * blocks);
  push.axis = 2;
  scheduler_.dispatchThreads({"clearance z (output)", envelopeKernel_.get(), {}, push, uses}, uint64_t(n) * n * blocks);
  scheduler_.submit();
}

ClearanceStats GpuClearance::compute(std::span<const RegionKey> requested) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<RegionKey> targets;
  if (requested.empty()) {
    for (const auto& [key, region] : map_.regions()) targets.push_back(key);
  } else {
    for (const RegionKey& key : requested)
      if (map_.findRegion(key)) targets.push_back(key);
  }
  std::sort(targets.begin(), targets.end());  // neighbours in a batch share their neighbourhoods
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  ClearanceStats stats;
  std::vector<RegionKey> batch;
  std::set<RegionKey> resident;  // the batch's targets and their neighbours that the map has
  auto flush = [&] {
    if (batch.empty()) return;
    recordBatch(batch, std::vector<RegionKey>(resident.begin(), resident.end()));
    stats.regions += batch.size();
    batch.clear();
    resident.clear();
  };
  for (const RegionKey& key : targets) {
    std::vector<RegionKey> needed;
    for (const RegionKey& k : regionsWithinRange(key, map_.model(), options_))
      if (map_.findRegion(k) && !resident.count(k)) needed.push_back(k);
    if (batch.size() + 1 > maxBlocks_ || resident.size() + needed.size() > cache_->slotCount()) {
      flush();
      needed.clear();
      for (const RegionKey& k : regionsWithinRange(key, map_.model(), options_))
        if (map_.findRegion(k)) needed.push_back(k);
    }
    batch.push_back(key);
    resident.insert(needed.begin(), needed.end());
  }
  flush();
  cache_->syncToMap();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace voxen

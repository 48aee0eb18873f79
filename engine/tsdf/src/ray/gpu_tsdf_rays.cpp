// Lidar rays into the TSDF on the GPU (voxen/tsdf/gpu_tsdf_rays.hpp): the scan's packed rays
// up, the discovery pass (blocks into a GPU hash set with their list indices, the list read
// back), the blocks sorted by region into chunks that fit the region cache and the
// accumulators, and per chunk the accumulation and fold passes (shaders/tsdf/tsdf_ray_*.comp).
#include "voxen/tsdf/gpu_tsdf_rays.hpp"

#include <algorithm>
#include <map>

#include "../tsdf_internal.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

namespace {

TsdfBlock unpackBlock(uint64_t key) {
  const auto axis = [&](int shift) { return int32_t((key >> shift) & 0x1FFFFFu) - (1 << 20); };
  return {axis(42), axis(21), axis(0)};
}

constexpr uint64_t kSumBytesPerBlock = uint64_t(gpu::kTsdfBlockVoxels) * 16;

}  // namespace

struct GpuTsdfRayIntegrator::State {
  State(Scheduler& s, OccupancyMap& m, const TsdfOptions& o, uint64_t cacheBytes, uint64_t sumBytes)
      : scheduler(s), map(m), options(o),
        cache(s, m, std::max(cacheBytes, RegionCache::bytesPerRegion(m)), RegionCache::GpuTable::None) {
    cache.setUnseenChanges(true);  // every region the passes hold may have changed
    // At least one region's blocks fit the accumulators (a chunk holds whole regions).
    const uint64_t regionBlocks = uint64_t(m.regionSize() / gpu::kTsdfBlock) * uint64_t(m.regionSize() / gpu::kTsdfBlock) *
                                  uint64_t(m.regionSize() / gpu::kTsdfBlock);
    sumBlocks = std::max(regionBlocks, sumBytes / kSumBytesPerBlock);
  }
  void ensure(Buffer& buffer, const char* name, uint64_t bytes) {
    if (buffer.size() >= bytes && buffer.handle() != VK_NULL_HANDLE) return;
    if (buffer.handle() != VK_NULL_HANDLE) scheduler.wait(scheduler.submit());
    buffer = Buffer(scheduler.device(), name, std::max<uint64_t>(bytes, 256));
  }
  gpu::TsdfRayScanPush scanPush() const {
    gpu::TsdfRayScanPush push{};
    push.rays = rays.address();
    push.rayCount = uint32_t(pending.size());
    push.weighting = options.weighting == TsdfWeighting::Constant ? gpu::kTsdfWeightConstant : gpu::kTsdfWeightLinearDropOff;
    push.truncation = std::llround(options.truncationVoxels * double(gpu::kTsdfFine));
    return push;
  }
  // The scan's blocks, as (block, list index) pairs in discovery order.
  std::vector<std::pair<TsdfBlock, uint32_t>> discover(TsdfScanStats& stats);

  Scheduler& scheduler;
  OccupancyMap& map;
  TsdfOptions options;
  RegionCache cache;
  Buffer rays, table, indices, list, counters, order, blocks, sums;
  uint32_t tableCapacity = 1u << 16, listCapacity = 1u << 15;
  uint64_t sumBlocks = 0;
  uint64_t batch = 0;
  std::vector<gpu::TsdfRay> pending;  // the current scan's rays
  uint64_t pendingSkipped = 0;
};

std::vector<std::pair<TsdfBlock, uint32_t>> GpuTsdfRayIntegrator::State::discover(TsdfScanStats& stats) {
  const auto kernel = scheduler.library().kernel("tsdf/tsdf_ray_discover.comp");
  for (;;) {
    ensure(table, "tsdf ray block set", uint64_t(tableCapacity) * 8);
    ensure(indices, "tsdf ray block indices", uint64_t(tableCapacity) * 4);
    ensure(list, "tsdf ray block list", uint64_t(listCapacity) * 8);
    ensure(counters, "tsdf ray block count", 16);
    const BufferRange tableRange = table.range(0, uint64_t(tableCapacity) * 8), indexRange = indices.range(0, uint64_t(tableCapacity) * 4),
                      listRange = list.range(0, uint64_t(listCapacity) * 8);
    scheduler.fill(tableRange, 0);
    scheduler.fill(counters.range(), 0);
    gpu::TsdfRayDiscoverPush push{};
    push.scan = scanPush();
    push.table = tableRange.address;
    push.indices = indexRange.address;
    push.list = listRange.address;
    push.counters = counters.address();
    push.tableMask = tableCapacity - 1;
    push.listCapacity = listCapacity;
    push.maxProbe = gpu::kTsdfRayMaxProbe;
    scheduler.dispatchThreads({"tsdf ray discover", kernel.get(), {}, push,
                               {reads(rays.range()), readsWrites(tableRange), writes(indexRange), writes(listRange),
                                readsWrites(counters.range())}},
                              pending.size());
    const std::vector<uint32_t> count = scheduler.readback<uint32_t>(counters.range(0, 8)).get();
    if (count[1] == 0 && count[0] <= listCapacity) {
      std::vector<std::pair<TsdfBlock, uint32_t>> found;
      if (count[0] > 0) {
        const std::vector<uint64_t> keys = scheduler.readback<uint64_t>(list.range(0, uint64_t(count[0]) * 8)).get();
        for (uint32_t i = 0; i < keys.size(); ++i) found.emplace_back(unpackBlock(keys[i]), i);
      }
      return found;
    }
    // Too many blocks for the set or the list: four times larger, again.
    if (tableCapacity >= (1u << 28)) throw Error("a scan reaches more than 2^26 blocks: the TSDF's block set cannot hold them");
    tableCapacity *= 4;
    listCapacity *= 4;
    ++stats.discoveryRetries;
  }
}

GpuTsdfRayIntegrator::GpuTsdfRayIntegrator(Scheduler& scheduler, OccupancyMap& map, const TsdfOptions& options, uint64_t cacheBytes,
                                           uint64_t sumBytes) {
  prepareTsdfMap(map, options);
  state_ = std::make_unique<State>(scheduler, map, options, cacheBytes, sumBytes);
}

GpuTsdfRayIntegrator::~GpuTsdfRayIntegrator() {
  // A destructor must not throw; the caller who wanted the voxels called sync(). Apart, so that
  // a scan that cannot be folded still leaves the earlier scans' voxels in the map.
  try {
    if (!state_->pending.empty()) endScan();  // rays added since the last endScan are a scan too
  } catch (...) {
  }
  try {
    sync();
  } catch (...) {
  }
}

const TsdfOptions& GpuTsdfRayIntegrator::options() const { return state_->options; }

void GpuTsdfRayIntegrator::sync() { state_->cache.syncToMap(); }

void GpuTsdfRayIntegrator::add(std::span<const Ray> rays) {
  state_->pendingSkipped += tsdfPackRays(rays, state_->options, state_->map.model().resolution, state_->pending);
}

TsdfScanStats GpuTsdfRayIntegrator::integrate(std::span<const Ray> scan) {
  add(scan);
  return endScan();
}

TsdfScanStats GpuTsdfRayIntegrator::endScan() {
  State& s = *state_;
  TsdfScanStats stats;
  stats.rays = s.pending.size();
  stats.raysSkipped = s.pendingSkipped;
  s.pendingSkipped = 0;
  // However this ends (a throw included), the scan's rays are gone: a scan that fails is not
  // folded into the next one.
  struct ClearOnExit {
    std::vector<gpu::TsdfRay>& rays;
    ~ClearOnExit() { rays.clear(); }
  } clearOnExit{s.pending};
  if (s.pending.empty()) return stats;
  if (s.pending.size() >= (1ull << 32)) throw Error("a scan of 2^32 rays or more: cut it into scans");
  const uint64_t rayBytes = s.pending.size() * sizeof(gpu::TsdfRay);
  s.ensure(s.rays, "tsdf rays", rayBytes);
  s.scheduler.upload(s.rays.range(0, rayBytes), s.pending.data(), rayBytes);

  std::vector<std::pair<TsdfBlock, uint32_t>> found = s.discover(stats);
  stats.blocks = found.size();
  if (found.empty()) {
    s.pending.clear();
    return stats;
  }
  // The blocks by region (regions in order), each block's sorted position for the lookups.
  const int32_t n = s.map.regionSize(), b = gpu::kTsdfBlock;
  const auto regionOf = [&](const TsdfBlock& block) {
    return RegionKey{floorDiv(block.x * b, n), floorDiv(block.y * b, n), floorDiv(block.z * b, n)};
  };
  std::map<RegionKey, std::vector<std::pair<TsdfBlock, uint32_t>>> byRegion;
  for (const auto& entry : found) byRegion[regionOf(entry.first)].push_back(entry);
  std::vector<uint32_t> order(found.size());
  std::vector<TsdfBlock> sorted;
  sorted.reserve(found.size());
  for (auto& [key, list] : byRegion) {
    std::sort(list.begin(), list.end());
    for (const auto& [block, index] : list) {
      order[index] = uint32_t(sorted.size());
      sorted.push_back(block);
    }
  }
  const uint64_t orderBytes = order.size() * 4;
  s.ensure(s.order, "tsdf ray block order", orderBytes);
  const BufferRange orderRange = s.order.range(0, orderBytes);
  s.scheduler.upload(orderRange, order.data(), orderBytes);

  const auto accumulate = s.scheduler.library().kernel("tsdf/tsdf_ray_accumulate.comp");
  const auto fold = s.scheduler.library().kernel("tsdf/tsdf_ray_fold.comp");
  const BufferRange pool = *s.cache.poolRange(kTsdfLayer);
  const uint32_t maxWeight = tsdfWeightUnits(s.options.maxWeight);
  const BufferRange tableRange = s.table.range(0, uint64_t(s.tableCapacity) * 8), indexRange = s.indices.range(0, uint64_t(s.tableCapacity) * 4);
  uint64_t first = 0;
  auto it = byRegion.begin();
  while (it != byRegion.end()) {
    // Whole regions while they fit the cache's slots and the accumulators.
    std::vector<RegionKey> keys;
    uint64_t count = 0;
    auto end = it;
    while (end != byRegion.end() && keys.size() < s.cache.slotCount() && count + end->second.size() <= s.sumBlocks) {
      count += end->second.size();
      keys.push_back((end++)->first);
    }
    s.cache.makeResident(keys, ++s.batch);
    std::vector<gpu::ivec4> entries;
    entries.reserve(count);
    for (auto r = it; r != end; ++r) {
      const int32_t slot = int32_t(s.cache.slotOf(r->first));
      for (const auto& [block, index] : r->second) entries.push_back({block.x, block.y, block.z, slot});
    }
    s.ensure(s.blocks, "tsdf ray blocks", entries.size() * sizeof(gpu::ivec4));
    const BufferRange blockRange = s.blocks.range(0, entries.size() * sizeof(gpu::ivec4));
    s.scheduler.upload(blockRange, entries.data(), blockRange.size);
    s.ensure(s.sums, "tsdf ray sums", count * kSumBytesPerBlock);
    const BufferRange sumRange = s.sums.range(0, count * kSumBytesPerBlock);
    s.scheduler.fill(sumRange, 0);

    gpu::TsdfRayAccumulatePush push{};
    push.scan = s.scanPush();
    push.table = tableRange.address;
    push.indices = indexRange.address;
    push.order = orderRange.address;
    push.sums = sumRange.address;
    push.tableMask = s.tableCapacity - 1;
    push.chunkFirst = uint32_t(first);
    push.chunkBlocks = uint32_t(count);
    s.scheduler.dispatchThreads({"tsdf ray accumulate", accumulate.get(), {}, push,
                                 {reads(s.rays.range()), reads(tableRange), reads(indexRange), reads(orderRange), readsWrites(sumRange)}},
                                s.pending.size());
    gpu::TsdfRayFoldPush foldPush{};
    foldPush.blocks = blockRange.address;
    foldPush.sums = sumRange.address;
    foldPush.tsdf = pool.address;
    foldPush.blockCount = uint32_t(count);
    foldPush.regionSize = n;
    foldPush.maxWeight = maxWeight;
    s.scheduler.dispatchThreads({"tsdf ray fold", fold.get(), {}, foldPush, {reads(blockRange), reads(sumRange), readsWrites(pool)}},
                                count * gpu::kTsdfBlockVoxels);
    ++stats.chunks;
    first += count;
    it = end;
  }
  s.pending.clear();
  return stats;
}

}  // namespace voxen

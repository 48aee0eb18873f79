#include "voxen/occupancy/ray_batcher.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/freed_heap.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/occupancy/host_stage_timer.hpp"

namespace voxen {

namespace {

using gpu::GpuRay;
constexpr uint32_t kInfinityBits = 0x7f800000u;
// A batch's region list entries and segments at most (256 MiB each of device memory).
constexpr uint64_t kMaxBatchRegionEntries = uint64_t(1) << 26;
constexpr uint64_t kMaxBatchSegments = uint64_t(1) << 25;
// A run's first batch holds this many rays at first and doubles up to --batch-size as rays
// arrive, so a small input gets small ray buffers (the batch boundaries are unchanged:
// a batch still closes at --batch-size rays).
constexpr uint32_t kInitialBatchRays = 4096;

}  // namespace

// The batch being filled: its rays are written in place; the host keeps only running sums
// (region list entries and segments, which place each ray's lists) and the batch's origin
// region (discovery packs keys relative to it).
struct RayBatcher::Batch {
  GpuRay* rays = nullptr;  // written in place (StreamedInput::begin) up to `capacity`
  uint32_t rayCount = 0;
  uint32_t capacity = 0;  // rays the buffer holds now, grown up to maxRaysPerBatch
  uint64_t regionEntries = 0;  // the rays' region lists so far, back to back
  uint64_t segmentCount = 0;   // the rays' segments so far
  RegionKey origin;            // the first ray's start region
  void clear() {
    rays = nullptr;
    rayCount = 0;
    capacity = 0;
    regionEntries = 0;
    segmentCount = 0;
  }
};

// A batch whose discovery was submitted and whose integration waits for the next flush().
struct RayBatcher::PendingBatch {
  RegionDiscovery::Ticket ticket;
  BufferRange rays;
  uint32_t raysCopy = 0;
  uint32_t rayCount = 0;
  uint32_t segmentCount = 0;
};

RayBatcher::RayBatcher(Scheduler& scheduler, OccupancyMap& map, const IntegrationOptions& options,
                       const GpuIntegratorOptions& gpuOptions, IntegrationStats& stats, HostStageTimer& timer)
    : scheduler_(scheduler),
      map_(map),
      gpuOptions_(gpuOptions),
      stats_(stats),
      timer_(timer),
      cache_(scheduler, map, gpuOptions.cacheBytes, RegionCache::GpuTable::None),
      rays_(scheduler, "occupancy rays", uint64_t(std::min(gpuOptions.maxRaysPerBatch, kInitialBatchRays)) * sizeof(GpuRay)),
      discovery_(std::make_unique<RegionDiscovery>(scheduler, gpuOptions.maxRaysPerBatch)),
      batch_(std::make_unique<Batch>()) {
  if (gpuOptions_.maxRaysPerBatch == 0) throw Error("batch size must be at least 1 ray");
  if (gpuOptions_.maxCrossingsPerSegment < 8 || gpuOptions_.maxCrossingsPerSegment > 4096)
    throw Error("segment length must be between 8 and 4096 crossings");
  const int32_t n = map_.regionSize();
  regionShift_ = (n & (n - 1)) == 0 ? std::countr_zero(uint32_t(n)) : -1;
  passFlags_ = occupancyPassFlags(map_, options);
  strategy_ = makeIntegrationStrategy({scheduler, map, options, gpuOptions_, uint32_t(cache_.slotCount()), passFlags_});
  stopKernel_ = occupancyKernel(scheduler, "occupancy/stop_search.comp", passFlags_);
  // Only the stop search writes stop points; other runs keep a token buffer for the address.
  stop_ = Buffer(scheduler.device(), "occupancy stop points",
                 passFlags_ & gpu::kPassStopOnOccupied ? uint64_t(gpuOptions_.maxRaysPerBatch) * 4 : 4);
  counters_ = Buffer(scheduler.device(), "occupancy counters", gpu::kCounterStripes * gpu::kCounterStride * 8);
  scheduler.fill(counters_, 0);
}

RayBatcher::~RayBatcher() = default;

bool RayBatcher::holdsRays() const { return batch_->rayCount > 0 || pending_; }

RegionKey RayBatcher::regionOf(const VoxelCoord& v) const {
  if (regionShift_ >= 0) return {v.x >> regionShift_, v.y >> regionShift_, v.z >> regionShift_};
  const int32_t n = map_.regionSize();
  return {floorDiv(v.x, n), floorDiv(v.y, n), floorDiv(v.z, n)};
}

void RayBatcher::add(std::span<const GpuRay> records, std::span<const uint32_t> regionCounts) {
  for (size_t k = 0; k < records.size(); ++k) addRecord(records[k], regionCounts[k]);
}

// The integration thread's whole work per ray: a copy of its prepared record into the batch,
// with the offsets of its region list and segments (running sums of counts from its end
// points). Its regions and segments are found on the GPU (RegionDiscovery).
void RayBatcher::addRecord(const GpuRay& record, uint32_t regionCount) {
  ++stats_.rays;
  // Discovery packs a batch's region keys relative to its first ray's start region: a ray
  // reaching past that span starts a new batch (only for rays thousands of kilometres apart).
  // These batch ends depend on the end points only, never on a walk.
  const RegionKey from = regionOf({record.start.x, record.start.y, record.start.z});
  const RegionKey to = regionOf({record.end.x, record.end.y, record.end.z});
  if (batch_->rayCount > 0) {
    const RegionKey& o = batch_->origin;
    auto near = [&](const RegionKey& k) {
      return std::abs(int64_t(k.x) - o.x) <= gpu::kDiscoverySpan && std::abs(int64_t(k.y) - o.y) <= gpu::kDiscoverySpan &&
             std::abs(int64_t(k.z) - o.z) <= gpu::kDiscoverySpan;
    };
    // The batch's region lists and segments are bounded too (device memory, 32-bit offsets):
    // reached only by batches of millions of rays kilometres long.
    const bool full = batch_->regionEntries + regionCount > kMaxBatchRegionEntries ||
                      batch_->segmentCount + record.segments > kMaxBatchSegments;
    if (!near(from) || !near(to) || full) flush();
  }
  Batch& b = *batch_;
  if (b.rayCount == 0) {
    b.origin = from;
    // A batch's first ray maps the rays' buffer, which may wait for the GPU to release it.
    b.capacity = std::min(gpuOptions_.maxRaysPerBatch, std::max(kInitialBatchRays, largestBatch_));
    b.rays = reinterpret_cast<GpuRay*>(rays_.begin(size_t(b.capacity) * sizeof(GpuRay)));
  } else if (b.rayCount == b.capacity) {
    b.capacity = uint32_t(std::min<uint64_t>(gpuOptions_.maxRaysPerBatch, uint64_t(b.capacity) * 2));
    largestBatch_ = std::max(largestBatch_, b.capacity);
    b.rays = reinterpret_cast<GpuRay*>(rays_.grow(size_t(b.capacity) * sizeof(GpuRay), size_t(b.rayCount) * sizeof(GpuRay)));
  }
  GpuRay& g = b.rays[b.rayCount++];
  g = record;
  g.slotBase = uint32_t(gpuOptions_.maxRaysPerBatch + b.regionEntries);
  g.segmentBase = uint32_t(b.segmentCount);
  b.regionEntries += regionCount;
  b.segmentCount += record.segments;
  if (b.rayCount >= gpuOptions_.maxRaysPerBatch) flush();
}

void RayBatcher::drain() {
  flush();
  timer_.batchBegin();
  integratePending();
  timer_.batchEnd();
}

// Closes the batch being filled: submits its region discovery without waiting, then
// integrates the batch before it, whose discovery has been queued for a whole batch by
// now. So the host never waits for the batch it just closed, and the GPU has the next
// discovery queued behind the integration it is running.
void RayBatcher::flush() {
  Batch& b = *batch_;
  if (b.rayCount == 0) return;
  timer_.batchBegin();
  auto next = std::make_unique<PendingBatch>();
  next->rayCount = b.rayCount;
  next->segmentCount = uint32_t(b.segmentCount);
  next->rays = rays_.end(b.rayCount * sizeof(GpuRay));
  next->raysCopy = rays_.currentCopy();
  next->ticket = discovery_->submit(next->rays, b.rayCount, b.origin, map_.regionSize(), b.regionEntries, b.segmentCount);
  rays_.submitted(next->raysCopy, scheduler_.lastSubmitted());
  batch_->clear();
  timer_.mark(&HostStageTimes::discoverySeconds);
  integratePending();
  pending_ = std::move(next);
  timer_.batchEnd();
}

// Integrates the pending batch, if any: its discovered regions in chunks of at most the
// cache's slots (one chunk unless the batch touches more regions than the cache holds).
// Every pass of a chunk updates only that chunk's voxels, and a voxel's updates depend only
// on the voxel, so the map is the one an unlimited cache gives whatever the chunking. Stop
// points (stop on first occupied) are judged over every chunk before any chunk is updated.
void RayBatcher::integratePending() {
  if (!pending_) return;
  const PendingBatch& p = *pending_;
  const std::vector<DiscoveredRegion> regions = discovery_->collect(pending_->ticket);
  // The third batch's discovery was queued behind the first batch's updates: collecting it
  // means they have run (the driver's own scratch for them is freed too).
  if (stats_.batches == 2) returnFreedHeap();
  timer_.mark(&HostStageTimes::discoverySeconds);
  const size_t slots = cache_.slotCount();
  const size_t chunks = (regions.size() + slots - 1) / slots;
  const bool stopSearch = passFlags_ & gpu::kPassStopOnOccupied;
  if (stopSearch) scheduler_.fill(stop_.range(0, p.rayCount * 4ull), kInfinityBits);
  if (stopSearch && chunks > 1)
    for (size_t c = 0; c < chunks; ++c) integrateChunk(regions, c, p, ChunkWork::StopSearch);
  for (size_t c = 0; c < chunks; ++c)
    integrateChunk(regions, c, p, stopSearch && chunks == 1 ? ChunkWork::StopSearchAndUpdates : ChunkWork::Updates);
  ++stats_.batches;
  stats_.regionChunks += chunks;
  pending_.reset();
}

// Makes chunk c of the batch's regions resident, gives every set entry its slot (or
// kNotInChunk), records the chunk's passes and submits them.
void RayBatcher::integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t c, const PendingBatch& batch,
                                ChunkWork work) {
  const BufferRange& rays = batch.rays;
  const uint32_t rayCount = batch.rayCount, segmentCount = batch.segmentCount;
  const size_t slots = cache_.slotCount();
  const size_t first = c * slots, last = std::min(regions.size(), first + slots);
  std::vector<RegionKey> keys(last - first);
  for (size_t k = first; k < last; ++k) keys[k - first] = regions[k].key;
  cache_.makeResident(keys, ++batchStamp_);
  // Every region of the batch gets updates: their occupancy changes (for derived layers).
  if (work != ChunkWork::StopSearch)
    for (const RegionKey& key : keys) map_.markOccupancyChanged(key);
  timer_.mark(&HostStageTimes::residencySeconds);

  std::vector<uint32_t> keySlots(keys.size());
  entrySlots_.assign(discovery_->setEntries(), gpu::kNotInChunk);
  for (size_t k = first; k < last; ++k) entrySlots_[regions[k].entry] = keySlots[k - first] = cache_.slotOf(keys[k - first]);
  const BufferRange entrySlots = discovery_->publishSlots(entrySlots_);
  const BufferRange raySlots = discovery_->raySlots(batch.ticket.copy).range();
  const BufferRange segments = discovery_->segments(batch.ticket.copy).range(0, std::max<uint64_t>(segmentCount, 1) * 8);

  const OccupancyModel& model = map_.model();
  gpu::OccupancyPush push{};
  push.rays = rays.address;
  push.segments = segments.address;
  push.layers = cache_.layerTableAddress();
  push.entrySlots = entrySlots.address;
  push.counters = counters_.address();
  push.stop = stop_.address();
  push.raySlots = raySlots.address;
  push.regionSize = model.regionSize;
  push.hitValue = model.hitValue();
  push.missValue = model.missValue();
  push.clampMin = model.clampMin;
  push.clampMax = model.clampMax;
  push.threshold = model.thresholdValue();
  push.flags = passFlags_;

  std::vector<BufferUse> uses{reads(rays), reads(segments), reads(raySlots), reads(entrySlots),
                              reads(cache_.layerTableRange()), readsWrites(counters_), readsWrites(stop_)};
  for (const BufferRange& pool : cache_.poolRanges()) uses.push_back(readsWrites(pool));
  if (work != ChunkWork::Updates) {
    push.itemCount = segmentCount;
    scheduler_.dispatchThreads({"occupancy stop search", stopKernel_.get(), {}, push, uses}, segmentCount);
  }
  if (work != ChunkWork::StopSearch) {
    push.rayCount = rayCount;
    strategy_->recordUpdates({push, uses, keys, keySlots, segmentCount});
    // Every pass of the run is created by now: the compiler's freed heap goes back, here
    // and once the passes have run (BENCHMARKS.md, issue 26 item 4: a lower resident peak).
    if (stats_.batches == 0) returnFreedHeap();
  }
  rays_.submitted(batch.raysCopy, scheduler_.submit());  // the GPU starts while the host prepares the next chunk or batch
  timer_.mark(&HostStageTimes::uploadSeconds);
}

}  // namespace voxen

#include "voxen/occupancy/ray_batcher.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "voxen/gpu/occupancy/batch_assembly_shared.h"
#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/freed_heap.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
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

// The batch being filled: its parts (runs of prepared records, in order) and running sums
// (region list entries and segments, which place each ray's lists) and its origin region
// (discovery packs keys relative to it).
struct RayBatcher::Batch {
  struct Part {
    RayRecordPool::Lease block;  // kept until the GPU has read the part
    uint32_t firstRecord = 0;    // in the block
    uint32_t firstRay = 0;       // in the batch
    uint32_t slotBaseAdd = 0;    // what discovery adds (modulo 2^32)
    uint32_t segmentBaseAdd = 0;   // what discovery adds (modulo 2^32)
  };
  std::vector<Part> parts;
  uint32_t rayCount = 0;
  uint64_t regionEntries = 0;  // the rays' region lists so far, back to back
  uint64_t segmentCount = 0;   // the rays' segments so far
  RegionKey origin;            // the first ray's start region
  void clear() {
    parts.clear();
    rayCount = 0;
    regionEntries = 0;
    segmentCount = 0;
  }
};

// A batch whose discovery was submitted and whose integration waits for the next flush().
struct RayBatcher::PendingBatch {
  RegionDiscovery::Ticket ticket;
  BufferRange rays;
  uint32_t rayCount = 0;
  uint32_t segmentCount = 0;
  bool resolvedChunk = false;  // its discovery looked residency up and its passes followed
  uint64_t loadsAtRecord = 0;  // the cache's loads when it was recorded
  // The record blocks its assembly reads: let go once its discovery has been collected (the
  // assembly ran in the same submission).
  std::vector<RayRecordPool::Lease> blocks;
};

RayBatcher::RayBatcher(Scheduler& scheduler, OccupancyMap& map, const IntegrationOptions& options,
                       const GpuIntegratorOptions& gpuOptions, IntegrationStats& stats, HostStageTimer& timer)
    : scheduler_(scheduler),
      map_(map),
      gpuOptions_(gpuOptions),
      stats_(stats),
      timer_(timer),
      // The GPU hash table is kept when batches may look their regions up on the GPU (never
      // with the stop search, which judges every chunk before any update).
      cache_(scheduler, map, gpuOptions.cacheBytes,
             gpuOptions.residencyLookup != ResidencyLookup::Host && !options.flags.has(RayFlag::StopOnFirstOccupied)
                 ? RegionCache::GpuTable::Kept
                 : RegionCache::GpuTable::None),
      discovery_(std::make_unique<RegionDiscovery>(scheduler, gpuOptions.maxRaysPerBatch)),
      batch_(std::make_unique<Batch>()),
      regionOf_(map.regionSize()) {
  if (gpuOptions_.maxRaysPerBatch == 0) throw Error("batch size must be at least 1 ray");
  if (gpuOptions_.maxCrossingsPerSegment < 8 || gpuOptions_.maxCrossingsPerSegment > 4096)
    throw Error("segment length must be between 8 and 4096 crossings");
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

bool RayBatcher::nearOrigin(const RegionKey& k) const {
  const RegionKey& o = batch_->origin;
  return std::abs(int64_t(k.x) - o.x) <= gpu::kDiscoverySpan && std::abs(int64_t(k.y) - o.y) <= gpu::kDiscoverySpan &&
         std::abs(int64_t(k.z) - o.z) <= gpu::kDiscoverySpan;
}

// The batch rules, applied to a run of records at once: a batch ends at --batch-size rays,
// before a ray whose end points lie outside the span discovery packs around the batch's
// first ray's start region (only rays thousands of kilometres apart), and before its region
// lists or segments would pass their bounds (device memory, 32-bit offsets: only batches of
// millions of rays kilometres long). Every rule depends on the end points only, never on a
// walk, and cuts where the per-ray rule would: the sums come from the running sums, the span
// from the run's region bounds; only a run that leaves the span is looked at ray by ray
// (reading the end points back from the records, which that rare case may afford).
uint32_t RayBatcher::recordsThatFit(const PreparedRays& rays, const RayRecordPool::Lease& block, uint32_t first,
                                    uint32_t end) const {
  const Batch& b = *batch_;
  uint32_t take = std::min<uint32_t>(end - first, gpuOptions_.maxRaysPerBatch - b.rayCount);
  // The batch's first ray always goes in (it is the origin; a ray alone is within bounds).
  const uint32_t from = b.rayCount == 0 ? first + 1 : first;
  auto fits = [&](const std::vector<uint64_t>& offsets, uint64_t used, uint64_t bound) {
    // The first record k in [from, first + take) whose sum would pass the bound.
    const uint64_t limit = bound - used + offsets[first];  // offsets[k + 1] may be at most this
    const auto past = std::upper_bound(offsets.begin() + from + 1, offsets.begin() + first + take + 1, limit);
    return uint32_t(past - (offsets.begin() + 1));
  };
  take = std::min(take, fits(rays.regionOffsets, b.regionEntries, kMaxBatchRegionEntries) - first);
  take = std::min(take, fits(rays.segmentOffsets, b.segmentCount, kMaxBatchSegments) - first);
  if (!nearOrigin(rays.regionMin) || !nearOrigin(rays.regionMax)) {
    for (uint32_t k = from; k < first + take; ++k) {
      const GpuRay& record = block.records()[k];
      if (!nearOrigin(regionOf_({record.start.x, record.start.y, record.start.z})) ||
          !nearOrigin(regionOf_({record.end.x, record.end.y, record.end.z}))) {
        take = k - first;
        break;
      }
    }
  }
  return take;
}

void RayBatcher::add(const PreparedRays& rays, const RayRecordPool::Lease& block, uint32_t first, uint32_t end) {
  while (first < end) {
    Batch& b = *batch_;
    if (b.rayCount == 0) {
      const GpuRay& record = block.records()[first];  // one read per batch (its origin)
      b.origin = regionOf_({record.start.x, record.start.y, record.start.z});
    }
    const uint32_t take = recordsThatFit(rays, block, first, end);
    if (take > 0) {
      // Consecutive records of one block continue the last part (runs split by skipped rays).
      const uint32_t slotBaseAdd = uint32_t(gpuOptions_.maxRaysPerBatch + b.regionEntries - rays.regionOffsets[first]);
      const uint32_t segmentBaseAdd = uint32_t(b.segmentCount - rays.segmentOffsets[first]);
      const bool continues = !b.parts.empty() && b.parts.back().block.sameBlock(block) &&
                             b.parts.back().firstRecord + (b.rayCount - b.parts.back().firstRay) == first &&
                             b.parts.back().slotBaseAdd == slotBaseAdd && b.parts.back().segmentBaseAdd == segmentBaseAdd;
      if (!continues) b.parts.push_back({block, first, b.rayCount, slotBaseAdd, segmentBaseAdd});
      b.rayCount += take;
      b.regionEntries += rays.regionOffsets[first + take] - rays.regionOffsets[first];
      b.segmentCount += rays.segmentOffsets[first + take] - rays.segmentOffsets[first];
      stats_.rays += take;
      first += take;
    }
    // Full, or the next record does not fit: the batch closes before it.
    if (b.rayCount >= gpuOptions_.maxRaysPerBatch || first < end) flush();
  }
}

void RayBatcher::drain() {
  flush();
  timer_.batchBegin();
  integratePending();
  if (deferFlagRaised_) settleDeferral();
  timer_.batchEnd();
}

bool RayBatcher::resolveOnGpu() const {
  if (passFlags_ & gpu::kPassStopOnOccupied) return false;
  if (cache_.usedSlotBound() == 0) return false;  // nothing resident: nothing to look up
  switch (gpuOptions_.residencyLookup) {
    case ResidencyLookup::Host: return false;
    case ResidencyLookup::Gpu: return true;
    case ResidencyLookup::Adaptive: break;
  }
  return residentStreak_ > 0;
}

// A resolving discovery whose set overflowed raised the defer flag on the GPU, so every batch
// recorded since resolved nothing; once they are integrated (here: the one pending) no
// batch is left whose regions could be updated out of order, and the flag goes down.
void RayBatcher::settleDeferral() {
  integratePending();
  discovery_->clearDeferFlag();
  deferFlagRaised_ = false;
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
  const Assembled assembled = assemble();
  next->rays = assembled.rays;
  // A region's updates must reach it in batch order. This batch's submission updates the
  // regions resident now, so every earlier update of them must be submitted before it: not
  // so while the pending batch looked nothing up (its updates wait for integratePending), or
  // when regions were loaded since it was recorded (it found them absent: its second chunk
  // will update them). Then the pending batch is integrated first.
  bool resolve = resolveOnGpu();
  if (resolve && pending_ && (!pending_->resolvedChunk || pending_->loadsAtRecord != cache_.stats().loads)) {
    integratePending();
    resolve = resolveOnGpu();
  }
  next->loadsAtRecord = cache_.stats().loads;
  if (resolve) {
    const RegionDiscovery::Residency residency{cache_.tableRange(), cache_.tableMask(), cache_.maxProbe()};
    next->ticket = discovery_->recordResolving(next->rays, b.rayCount, b.origin, map_.regionSize(), b.regionEntries,
                                               b.segmentCount, assembled.parts, assembled.partCount, residency);
    recordResolvedChunk(*next);
    scheduler_.submit();
    cache_.setUnseenChanges(++uncollectedLookups_ > 0);
  } else {
    next->ticket = discovery_->submit(next->rays, b.rayCount, b.origin, map_.regionSize(), b.regionEntries,
                                      b.segmentCount, assembled.parts, assembled.partCount);
  }
  next->blocks.reserve(b.parts.size());
  for (Batch::Part& part : b.parts) next->blocks.push_back(std::move(part.block));
  batch_->clear();
  timer_.mark(&HostStageTimes::discoverySeconds);
  integratePending();
  pending_ = std::move(next);
  if (deferFlagRaised_) settleDeferral();
  timer_.batchEnd();
}

// Records the batch's assembly into its ray buffer (one of two, used in turn as discovery's
// lists are: the pending batch's rays stay untouched), growing that buffer as batches grow:
// every part's records copied, and the table of the parts' offsets, which discovery adds
// (batch_assembly_shared.h). The next submission (the batch's discovery) runs it.
RayBatcher::Assembled RayBatcher::assemble() {
  const Batch& b = *batch_;
  batchCopy_ ^= 1u;
  Buffer& rays = batchRays_[batchCopy_];
  const uint64_t bytes = uint64_t(b.rayCount) * sizeof(GpuRay);
  if (rays.size() < bytes) {
    // Buffers the GPU still reads are freed once it is done with them (Buffer's rule).
    const uint64_t grown = std::max<uint64_t>({bytes, rays.size() * 2, uint64_t(kInitialBatchRays) * sizeof(GpuRay)});
    rays = Buffer(scheduler_.device(), "occupancy rays",
                  std::min<uint64_t>(grown, uint64_t(gpuOptions_.maxRaysPerBatch) * sizeof(GpuRay)));
  }
  std::vector<gpu::RayPartOffsets> offsets(b.parts.size());
  bool anyOffset = false;
  for (size_t k = 0; k < b.parts.size(); ++k) {
    const Batch::Part& part = b.parts[k];
    const uint32_t end = k + 1 < b.parts.size() ? b.parts[k + 1].firstRay : b.rayCount;
    scheduler_.copy(part.block.range(part.firstRecord, end - part.firstRay),
                    rays.range(uint64_t(part.firstRay) * sizeof(GpuRay), uint64_t(end - part.firstRay) * sizeof(GpuRay)));
    offsets[k] = {part.firstRay, part.slotBaseAdd, part.segmentBaseAdd, 0};
    anyOffset = anyOffset || part.slotBaseAdd != 0 || part.segmentBaseAdd != 0;
  }
  Assembled assembled;
  assembled.rays = rays.range(0, bytes);
  if (anyOffset) {
    assembled.parts = scheduler_.transient(offsets.size() * sizeof(gpu::RayPartOffsets), 16);
    scheduler_.upload(assembled.parts, offsets.data(), offsets.size() * sizeof(gpu::RayPartOffsets));
    assembled.partCount = uint32_t(offsets.size());
  }
  return assembled;
}

// Integrates the pending batch, if any: the regions its own submission did not update (all
// of them unless it looked residency up on the GPU) in chunks of at most the cache's slots
// (one chunk unless the batch touches more regions than the cache holds). Every pass of a
// chunk updates only that chunk's voxels, and a voxel's updates depend only on the voxel, so
// the map is the one an unlimited cache gives whatever the chunking; a region that was not
// resident when a batch looked it up is not resident for the batches recorded before this
// one loads it either, so its updates still arrive in batch order. Stop points (stop on
// first occupied) are judged over every chunk before any chunk is updated.
void RayBatcher::integratePending() {
  if (!pending_) return;
  const PendingBatch& p = *pending_;
  const std::vector<DiscoveredRegion> regions = discovery_->collect(pending_->ticket);
  if (pending_->ticket.raisedDeferFlag) deferFlagRaised_ = true;
  if (p.resolvedChunk) cache_.setUnseenChanges(--uncollectedLookups_ > 0);
  // The third batch's discovery was queued behind the first batch's updates: collecting it
  // means they have run (the driver's own scratch for them is freed too).
  if (stats_.batches == 2) returnFreedHeap();
  timer_.mark(&HostStageTimes::discoverySeconds);
  std::vector<DiscoveredRegion> rest;
  std::vector<RegionKey> updated;  // by the batch's own submission
  for (const DiscoveredRegion& region : regions) {
    if (region.resolved)
      updated.push_back(region.key);
    else
      rest.push_back(region);
  }
  if (p.resolvedChunk) {
    ++stats_.gpuLookupBatches;
    stats_.lookupMissedRegions += rest.size();
  }
  if (!updated.empty()) {
    cache_.touch(updated, ++batchStamp_);
    for (const RegionKey& key : updated) map_.markValuesChanged(key);  // class crossings: on copy back
    ++stats_.regionChunks;
  }
  const uint64_t loadsBefore = cache_.stats().loads;
  const size_t slots = cache_.slotCount();
  const size_t chunks = (rest.size() + slots - 1) / slots;
  const bool stopSearch = passFlags_ & gpu::kPassStopOnOccupied;
  if (stopSearch) scheduler_.fill(stop_.range(0, p.rayCount * 4ull), kInfinityBits);
  if (stopSearch && chunks > 1)
    for (size_t c = 0; c < chunks; ++c) integrateChunk(rest, c, p, ChunkWork::StopSearch);
  for (size_t c = 0; c < chunks; ++c)
    integrateChunk(rest, c, p, stopSearch && chunks == 1 ? ChunkWork::StopSearchAndUpdates : ChunkWork::Updates);
  // Whether every region was resident already: what the next batches' lookup is chosen by.
  const bool allResident = p.resolvedChunk ? rest.empty() : cache_.stats().loads == loadsBefore;
  residentStreak_ = allResident ? residentStreak_ + 1 : 0;
  ++stats_.batches;
  stats_.regionChunks += chunks;
  pending_.reset();
}

gpu::OccupancyPush RayBatcher::chunkPush(const PendingBatch& batch, const BufferRange& entrySlots,
                                         std::vector<BufferUse>& uses) const {
  const BufferRange& rays = batch.rays;
  const BufferRange raySlots = discovery_->raySlots(batch.ticket.copy).range();
  const BufferRange segments =
      discovery_->segments(batch.ticket.copy).range(0, std::max<uint64_t>(batch.segmentCount, 1) * 8);
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
  uses = {reads(rays), reads(segments), reads(raySlots), reads(entrySlots), reads(cache_.layerTableRange()),
          readsWrites(counters_), readsWrites(stop_)};
  for (const BufferRange& pool : cache_.poolRanges()) uses.push_back(readsWrites(pool));
  return push;
}

// The batch's passes over the regions its discovery finds resident (region_list.comp writes
// their slots, kNotInChunk for the others), numbered by slot: the chunk's regions are the
// cache's slots in use, so that no host table depends on the batch.
void RayBatcher::recordResolvedChunk(PendingBatch& batch) {
  const std::vector<RegionKey> keys = cache_.slotKeys();
  std::vector<uint32_t> keySlots(keys.size());
  for (uint32_t k = 0; k < keySlots.size(); ++k) keySlots[k] = k;
  std::vector<BufferUse> uses;
  gpu::OccupancyPush push = chunkPush(batch, discovery_->entrySlots(), uses);
  push.rayCount = batch.rayCount;
  strategy_->recordUpdates({push, uses, keys, keySlots, batch.segmentCount});
  batch.resolvedChunk = true;
}

// Makes chunk c of the batch's regions resident, gives every set entry its slot (or
// kNotInChunk), records the chunk's passes and submits them.
void RayBatcher::integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t c, const PendingBatch& batch,
                                ChunkWork work) {
  const size_t slots = cache_.slotCount();
  const size_t first = c * slots, last = std::min(regions.size(), first + slots);
  std::vector<RegionKey> keys(last - first);
  for (size_t k = first; k < last; ++k) keys[k - first] = regions[k].key;
  cache_.makeResident(keys, ++batchStamp_);
  // Every region of the batch gets updates: their occupancy changes (for derived layers).
  if (work != ChunkWork::StopSearch)
    for (const RegionKey& key : keys) map_.markValuesChanged(key);  // class crossings: on copy back (RegionCache)
  timer_.mark(&HostStageTimes::residencySeconds);

  std::vector<uint32_t> keySlots(keys.size());
  entrySlots_.assign(discovery_->setEntries(), gpu::kNotInChunk);
  for (size_t k = first; k < last; ++k) entrySlots_[regions[k].entry] = keySlots[k - first] = cache_.slotOf(keys[k - first]);
  const BufferRange entrySlots = discovery_->publishSlots(entrySlots_);
  std::vector<BufferUse> uses;
  gpu::OccupancyPush push = chunkPush(batch, entrySlots, uses);
  const uint32_t rayCount = batch.rayCount, segmentCount = batch.segmentCount;
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
  scheduler_.submit();  // the GPU starts while the host prepares the next chunk or batch
  timer_.mark(&HostStageTimes::uploadSeconds);
}

}  // namespace voxen

#include "voxen/occupancy/gpu_integrator.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/occupancy/host_stage_timer.hpp"
#include "voxen/occupancy/ndt_params.hpp"
#include "voxen/occupancy/prepared_rays.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/region_discovery.hpp"
#include "voxen/occupancy/rejected_rays.hpp"
#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/primitives/radix_sort.hpp"
#include "voxen/primitives/stream_compaction.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/memory_stats.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

using gpu::GpuRay;
using gpu::OccupancyPush;
using gpu::kCounterStripes;
using gpu::kCounterStride;
using gpu::kPassReverse;
using gpu::kPassSequential;
using gpu::kPassStopOnOccupied;
constexpr uint32_t kInfinityBits = 0x7f800000u;
// A batch's region list entries and segments at most (256 MiB each of device memory).
constexpr uint64_t kMaxBatchRegionEntries = uint64_t(1) << 26;
constexpr uint64_t kMaxBatchSegments = uint64_t(1) << 25;

}  // namespace

// The batch being filled: its rays are written in place; the host keeps only running sums
// (region list entries and segments, which place each ray's lists) and the batch's origin
// region (discovery packs keys relative to it).
struct GpuIntegrator::Batch {
  GpuRay* rays = nullptr;  // written in place (StreamedInput::begin) up to maxRaysPerBatch
  uint32_t rayCount = 0;
  uint64_t regionEntries = 0;  // the rays' region lists so far, back to back
  uint64_t segmentCount = 0;   // the rays' segments so far
  RegionKey origin;            // the first ray's start region
  void clear() {
    rays = nullptr;
    rayCount = 0;
    regionEntries = 0;
    segmentCount = 0;
  }
};

GpuIntegrator::GpuIntegrator(Scheduler& scheduler, OccupancyMap& map, IntegrationOptions options,
                             GpuIntegratorOptions gpuOptions)
    : scheduler_(scheduler),
      map_(map),
      options_(options),
      gpuOptions_(gpuOptions),
      cache_(scheduler, map, gpuOptions.cacheBytes, RegionCache::GpuTable::None),
      rays_(scheduler, "occupancy rays", uint64_t(gpuOptions.maxRaysPerBatch) * sizeof(GpuRay)),
      discovery_(std::make_unique<RegionDiscovery>(scheduler, gpuOptions.maxRaysPerBatch)),
      batch_(std::make_unique<Batch>()),
      scratch_(std::make_unique<PreparedRays>()),
      timer_(std::make_unique<HostStageTimer>()) {
  if (gpuOptions_.maxRaysPerBatch == 0) throw Error("batch size must be at least 1 ray");
  if (gpuOptions_.maxCrossingsPerSegment < 8 || gpuOptions_.maxCrossingsPerSegment > 4096)
    throw Error("segment length must be between 8 and 4096 crossings");
  const int32_t n = map_.regionSize();
  regionShift_ = (n & (n - 1)) == 0 ? std::countr_zero(uint32_t(n)) : -1;
  if (options_.ndt.mode != NdtMode::Off) {
    setUpNdt();
  } else if (options_.order == UpdateOrder::Sequential) {
    setUpHitSort();
  }
  selectKernels(passFlags());
  stop_ = Buffer(scheduler.device(), "occupancy stop points", uint64_t(gpuOptions_.maxRaysPerBatch) * 4);
  counters_ = Buffer(scheduler.device(), "occupancy counters", kCounterStripes * kCounterStride * 8);
  scheduler.fill(counters_, 0);
}

GpuIntegrator::~GpuIntegrator() {
  // What was accepted must reach the map even when the caller forgot finish(); during
  // stack unwinding the map may be gone, so only then is it left alone.
  if (std::uncaught_exceptions() == 0 && (batch_->rayCount > 0 || pending_ || stats_.batches > synced_)) {
    try {
      finish();
    } catch (const std::exception& e) {
      logMessage(LogLevel::Error, std::string("GpuIntegrator could not copy its regions back: ") + e.what());
    }
  }
}

// Inline preparation, a chunk at a time through one reused PreparedRays: the same records
// as a worker's prepareRays would give, so both paths build the same map.
void GpuIntegrator::integrate(std::span<const Ray> rays) {
  constexpr size_t kChunk = 4096;
  timer_->raysBegin();
  for (size_t i = 0; i < rays.size(); i += kChunk) {
    prepareRays(rays.subspan(i, std::min(kChunk, rays.size() - i)), map_.model(), options_,
                gpuOptions_.maxCrossingsPerSegment, *scratch_);
    addPrepared(*scratch_);
  }
  timer_->raysEnd();
}

void GpuIntegrator::integrate(const PreparedRays& prepared) {
  timer_->raysBegin();
  addPrepared(prepared);
  timer_->raysEnd();
}

// Copies the records into the batch in input order, counting the skipped rays where they
// stood (their indices count every ray given, as the CPU reference's do).
void GpuIntegrator::addPrepared(const PreparedRays& prepared) {
  if (prepared.inputRays == 0) return;
  if (!timeOriginSet_ && map_.regions().empty()) map_.setTimeOrigin(prepared.firstTime);
  timeOriginSet_ = true;
  const uint64_t base = raysSeen_;
  size_t s = 0;
  auto skip = [&](const PreparedRays::Skipped& skipped) {
    const uint64_t index = base + skipped.position;
    if (skipped.problem == PreparedRays::Problem::TooLong)
      throw SettingError(SettingError::Kind::Change, "IntegrationOptions::maxRange", "the maximum range",
                         rayTooLongMessage(index, skipped.ray, skipped.regions, gpu::kMaxRegionsPerRay,
                                           "the GPU walks at most",
                                           options_.maxRange > 0.0 ? "lower {}" : "set {}"),
                         options_.maxRange > 0.0 ? formatNumber(options_.maxRange) + " m" : "none");
    noteRejectedRay(stats_, index, skipped.ray,
                    skipped.problem == PreparedRays::Problem::NonFinite ? RayFault::NonFinite
                    : skipped.problem == PreparedRays::Problem::TooFar  ? RayFault::TooFar
                                                                        : RayFault::NonFiniteIntensity);
  };
  for (size_t k = 0; k < prepared.records.size(); ++k) {
    for (; s < prepared.skipped.size() && prepared.skipped[s].position < prepared.positions[k]; ++s) skip(prepared.skipped[s]);
    addRecord(prepared.records[k], prepared.regionCounts[k]);
  }
  for (; s < prepared.skipped.size(); ++s) skip(prepared.skipped[s]);
  raysSeen_ = base + prepared.inputRays;
  stats_.clippedRays += prepared.clippedRays;
}

HostStageTimes GpuIntegrator::hostStageTimes() const {
  HostStageTimes times = timer_->times();
  times.rays = raysSeen_;
  return times;
}

// The scratch of the passes that group a batch's hits by sample voxel (occupancy_shared.h,
// kOrdered*: the sequential order and NDT) and the radix sort that groups them.
void GpuIntegrator::setUpHitSort() {
  const uint32_t capacity = gpuOptions_.maxRaysPerBatch;
  if (capacity > gpu::kMaxOrderedRays)
    throw Error("batch size " + std::to_string(capacity) + " is above the limit of " +
                std::to_string(gpu::kMaxOrderedRays) + " rays for grouping hits by voxel");
  const uint64_t n = uint64_t(map_.regionSize());
  if (uint64_t(cache_.slotCount()) * n * n * n >= (uint64_t(1) << 32))
    throw SettingError(SettingError::Kind::Change, "GpuIntegratorOptions::cacheBytes", "the GPU region cache",
                       "the GPU cache holds more voxels than 32-bit hit keys reach: lower {}",
                       formatBytes(gpuOptions_.cacheBytes));
  const uint32_t slots = uint32_t(cache_.slotCount());
  ordered_ = Buffer(scheduler_.device(), "occupancy ordered hits", uint64_t(gpu::orderedWords(capacity, slots)) * 4);
  batchOfSlot_.assign(slots, 0);
  sort_ = std::make_unique<RadixSort>(scheduler_, capacity);
}

// NDT: the hit sort, the compaction that lists each sample voxel's run, and the parameters
// with the chunk-level lists. The GPU applies NDT in two-phase order (free space, then the
// folds), as OHM's GPU NDT does; the sequential order would need every miss's ray in the
// replay, not just a count.
void GpuIntegrator::setUpNdt() {
  checkNdtMap(options_.ndt, map_.layout());
  if (options_.order != UpdateOrder::TwoPhase)
    throw Error("the GPU integrates NDT in two-phase order only (UpdateOrder::TwoPhase); the CPU reference has the "
                "sequential order too");
  if (options_.flags.has(RayFlag::StopOnFirstOccupied)) throw Error("NDT integration does not support stop-on-first-occupied");
  setUpHitSort();
  compaction_ = std::make_unique<StreamCompaction>(scheduler_);
  gpu::NdtParams params = ndtParams(options_.ndt, map_.model());
  const uint32_t capacity = gpuOptions_.maxRaysPerBatch;
  params.levels = (capacity + params.foldLimit - 1) / params.foldLimit;
  params.slotKeys = gpu::ndtSlotKeys(params.levels, capacity, params.foldLimit);
  const uint32_t slots = uint32_t(cache_.slotCount());
  ndt_ = Buffer(scheduler_.device(), "NDT parameters and run lists",
                uint64_t(gpu::ndtWords(params.levels, capacity, params.foldLimit, slots)) * 4);
  ndtSlotKeysOffset_ = uint64_t(params.slotKeys) * 4;
  slotKeys_.assign(size_t(slots) * 4, 0);
  // The chunk levels' empty state, uploaded per batch: each level's header {0, 1, 1, 0}.
  const uint32_t levelWords = 4 + gpu::ndtLevelCapacity(capacity, params.foldLimit);
  ndtLevelTemplate_.assign(size_t(params.levels > 1 ? params.levels - 1 : 0) * levelWords, 0);
  for (size_t h = 0; h < ndtLevelTemplate_.size(); h += levelWords) ndtLevelTemplate_[h + 1] = ndtLevelTemplate_[h + 2] = 1;
  scheduler_.upload(ndt_.range(0, sizeof(params)), &params, sizeof(params));
}

// The push fields and tables of the passes that group hits by voxel; returns the bits of
// this batch's keys.
uint32_t GpuIntegrator::prepareHitKeys(gpu::OccupancyPush& push, std::vector<BufferUse>& uses,
                                       const std::vector<uint32_t>& keySlots) {
  const uint32_t capacity = gpuOptions_.maxRaysPerBatch;
  const uint32_t slots = uint32_t(cache_.slotCount());
  // Keys are (batch region, voxel in region): as few bits as this batch's regions need.
  const uint64_t n = uint64_t(map_.regionSize());
  const uint64_t keys = uint64_t(keySlots.size()) * n * n * n;  // keys are below this
  const uint32_t keyBits = uint32_t(std::bit_width(keys));       // so that 2^keyBits - 1 >= keys
  push.ordered = ordered_.address();
  push.orderCapacity = capacity;
  push.noHitKey = uint32_t((uint64_t(1) << keyBits) - 1);
  push.slotCount = slots;
  for (uint32_t b = 0; b < keySlots.size(); ++b) batchOfSlot_[keySlots[b]] = b;
  scheduler_.upload(ordered_.range(uint64_t(gpu::orderedBatchOfSlot(capacity)) * 4, uint64_t(slots) * 4),
                    batchOfSlot_.data(), uint64_t(slots) * 4);
  scheduler_.upload(ordered_.range(uint64_t(gpu::orderedSlotOfBatch(capacity, slots)) * 4, keySlots.size() * 4ull),
                    keySlots.data(), keySlots.size() * 4ull);
  uses.push_back(readsWrites(ordered_.range()));
  return keyBits;
}

// The hit keys pass (hit_keys.comp: keys, and the hit updates of the layers that commute).
void GpuIntegrator::recordHitKeysPass(gpu::OccupancyPush push, const std::vector<BufferUse>& uses) {
  push.itemCount = push.rayCount;
  scheduler_.dispatchThreads({"occupancy hit keys", hitKeysKernel_.get(), {}, push, uses},
                             std::max(push.rayCount, gpu::kDeferredStripes));
}

// The stable sort of the batch's hit keys with their rays: each voxel's hits together, in
// input order.
void GpuIntegrator::recordHitSort(uint32_t rayCount, uint32_t keyBits) {
  const uint64_t arrayBytes = uint64_t(gpuOptions_.maxRaysPerBatch) * 4;
  sort_->record(ordered_.range(gpu::kOrderedKeys * arrayBytes, rayCount * 4ull),
                ordered_.range(gpu::kOrderedRays * arrayBytes, rayCount * 4ull), rayCount, keyBits);
}

// The sequential order's passes for one batch, after the stop search: the hit keys, their
// sort, the marks, the miss pass with its deferred misses, and the replay of each marked
// voxel's updates.
void GpuIntegrator::recordSequentialPasses(const gpu::OccupancyPush& batchPush, const std::vector<BufferUse>& batchUses,
                                           const std::vector<uint32_t>& keySlots, uint32_t segmentCount) {
  OccupancyPush push = batchPush;
  std::vector<BufferUse> uses = batchUses;
  const uint32_t capacity = gpuOptions_.maxRaysPerBatch;
  const uint32_t slots = uint32_t(cache_.slotCount());
  const uint32_t keyBits = prepareHitKeys(push, uses, keySlots);
  recordHitKeysPass(push, uses);
  recordHitSort(push.rayCount, keyBits);
  scheduler_.dispatchThreads({"occupancy hit marks", hitMarkKernel_.get(), {}, push, uses}, push.rayCount);
  push.itemCount = segmentCount;
  scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, uses}, segmentCount);
  scheduler_.dispatch({"occupancy ordered list sizes", orderedMissArgsKernel_.get(), {1, 1, 1}, push, uses});
  const BufferRange missArgs = ordered_.range(uint64_t(gpu::orderedMissHeader(capacity, slots)) * 4, 12);
  scheduler_.dispatchIndirect({"occupancy deferred misses", orderedMissesKernel_.get(), {}, push, uses}, missArgs);
  const BufferRange runArgs = ordered_.range(uint64_t(gpu::orderedRunHeader(capacity, slots)) * 4, 12);
  scheduler_.dispatchIndirect({"occupancy hit resolve", hitResolveKernel_.get(), {}, push, uses}, runArgs);
}

// NDT, one batch: the free-space pass, which applies the plain miss to voxels without a
// Gaussian, lists the others for ndt_misses.comp and writes the hit keys; the hit keys pass
// only when the map has layers whose hit updates it applies; the sort of the keys; the
// listed free-space updates; then each voxel's run of hits found and listed (ndt_runs.comp
// and the compaction), and one invocation per distinct sample voxel folding its samples in
// input order (ndt_fold.comp), in chunks of foldLimit samples: level k continues the runs
// longer than k chunks.
void GpuIntegrator::recordNdtPasses(const gpu::OccupancyPush& batchPush, const std::vector<BufferUse>& batchUses,
                                    const std::vector<uint32_t>& keySlots, const std::vector<RegionKey>& keys,
                                    uint32_t segmentCount) {
  OccupancyPush push = batchPush;
  std::vector<BufferUse> uses = batchUses;
  const uint32_t capacity = gpuOptions_.maxRaysPerBatch;
  const uint32_t slots = uint32_t(cache_.slotCount());
  const uint32_t rayCount = push.rayCount;
  push.ndt = ndt_.address();
  uses.push_back(readsWrites(ndt_.range()));
  for (size_t b = 0; b < keySlots.size(); ++b) {
    int32_t* entry = reinterpret_cast<int32_t*>(&slotKeys_[size_t(keySlots[b]) * 4]);
    entry[0] = keys[b].x, entry[1] = keys[b].y, entry[2] = keys[b].z;
  }
  scheduler_.upload(ndt_.range(ndtSlotKeysOffset_, slotKeys_.size() * 4), slotKeys_.data(), slotKeys_.size() * 4);
  const uint32_t keyBits = prepareHitKeys(push, uses, keySlots);
  // Empty lists: the deferred misses' stripe counts, and the chunk levels (each an indirect
  // dispatch of x workgroups, 1, 1, and a count).
  scheduler_.fill(ordered_.range(uint64_t(gpu::orderedMissHeader(capacity, slots)) * 4, gpu::kDeferredHeaderWords * 4ull), 0);
  if (!ndtLevelTemplate_.empty())
    scheduler_.upload(ndt_.range(uint64_t(gpu::ndtLevelHeader(1, capacity, options_.ndt.foldLimit)) * 4,
                                 ndtLevelTemplate_.size() * 4),
                      ndtLevelTemplate_.data(), ndtLevelTemplate_.size() * 4);
  push.itemCount = segmentCount;
  scheduler_.dispatchThreads({"NDT free-space pass", missKernel_.get(), {}, push, uses}, segmentCount);
  if (map_.layers().hasAny(kTraversalLayer | kTouchTimeLayer)) recordHitKeysPass(push, uses);
  recordHitSort(rayCount, keyBits);
  scheduler_.dispatch({"occupancy ordered list sizes", orderedMissArgsKernel_.get(), {1, 1, 1}, push, uses});
  const BufferRange missArgs = ordered_.range(uint64_t(gpu::orderedMissHeader(capacity, slots)) * 4, 12);
  scheduler_.dispatchIndirect({"NDT free-space Gaussians", ndtMissesKernel_.get(), {}, push, uses}, missArgs);
  push.itemCount = rayCount;
  scheduler_.dispatchThreads({"NDT runs", ndtRunsKernel_.get(), {}, push, uses}, rayCount);
  const uint64_t arrayBytes = uint64_t(capacity) * 4;
  const BufferRange runArgs = ndt_.range(gpu::kNdtRunArgs * 4ull, 12);
  compaction_->record(ordered_.range(gpu::kOrderedLeading * arrayBytes, rayCount * 4ull),
                      ordered_.range(gpu::kOrderedTrailing * arrayBytes, rayCount * 4ull), rayCount,
                      ndt_.range(gpu::kNdtRunTotal * 4ull, 4), &runArgs, 64);
  const uint32_t foldLimit = options_.ndt.foldLimit;
  for (uint32_t level = 0; uint64_t(level) * foldLimit < rayCount; ++level) {
    push.itemCount = level;
    const BufferRange args =
        level == 0 ? runArgs : ndt_.range(uint64_t(gpu::ndtLevelHeader(level, capacity, foldLimit)) * 4, 12);
    scheduler_.dispatchIndirect({level == 0 ? "NDT hit fold" : "NDT hit fold (long runs)", ndtFoldKernel_.get(), {}, push, uses},
                                args);
  }
}

uint32_t GpuIntegrator::passFlags() const {
  uint32_t flags = map_.layers().builtinFlags();
  if (options_.ndt.mode != NdtMode::Off) {
    flags |= gpu::kPassNdt;
    if (options_.ndt.mode == NdtMode::Tm) flags |= gpu::kPassNdtTm;
  } else if (options_.order == UpdateOrder::Sequential) {
    flags |= kPassSequential;
  }
  if (!(options_.flags.has(RayFlag::ForwardWalk))) flags |= kPassReverse;
  if (options_.flags.has(RayFlag::StopOnFirstOccupied)) flags |= kPassStopOnOccupied;
  return flags;
}

// The passes specialized on their flags (constant_id 0 in map_access.glsl): lavapipe runs
// every branch of a shader whether or not a lane takes it, so the code of the layers and
// walk directions a map does not use must be compiled out to cost nothing. The library
// keeps one pipeline per variant, shared by integrators with the same flags.
void GpuIntegrator::selectKernels(uint32_t flags) {
  ShaderLibrary& library = scheduler_.library();
  const KernelVariant variant{{}, {{0u, flags}}};
  stopKernel_ = library.kernel("occupancy/stop_search.comp", variant);
  missKernel_ = library.kernel("occupancy/integrate_miss.comp", variant);
  if (flags & gpu::kPassNdt) {
    hitKeysKernel_ = library.kernel("occupancy/hit_keys.comp", variant);
    ndtRunsKernel_ = library.kernel("occupancy/ndt_runs.comp", variant);
    ndtMissesKernel_ = library.kernel("occupancy/ndt_misses.comp", variant);
    orderedMissArgsKernel_ = library.kernel("occupancy/ordered_miss_args.comp", variant);
    ndtFoldKernel_ = library.kernel("occupancy/ndt_fold.comp", variant);
  } else if (flags & kPassSequential) {
    hitKeysKernel_ = library.kernel("occupancy/hit_keys.comp", variant);
    hitMarkKernel_ = library.kernel("occupancy/hit_mark.comp", variant);
    hitResolveKernel_ = library.kernel("occupancy/hit_resolve.comp", variant);
    orderedMissArgsKernel_ = library.kernel("occupancy/ordered_miss_args.comp", variant);
    orderedMissesKernel_ = library.kernel("occupancy/ordered_misses.comp", variant);
  } else {
    hitKernel_ = library.kernel("occupancy/integrate_hit.comp", variant);
  }
}

RegionKey GpuIntegrator::regionOf(const VoxelCoord& v) const {
  if (regionShift_ >= 0) return {v.x >> regionShift_, v.y >> regionShift_, v.z >> regionShift_};
  const int32_t n = map_.regionSize();
  return {floorDiv(v.x, n), floorDiv(v.y, n), floorDiv(v.z, n)};
}

// The integration thread's whole work per ray: a copy of its prepared record into the batch,
// with the offsets of its region list and segments (running sums of counts from its end
// points). Its regions and segments are found on the GPU (RegionDiscovery).
void GpuIntegrator::addRecord(const GpuRay& record, uint32_t regionCount) {
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
    b.rays = reinterpret_cast<GpuRay*>(rays_.begin(size_t(gpuOptions_.maxRaysPerBatch) * sizeof(GpuRay)));
  }
  GpuRay& g = b.rays[b.rayCount++];
  g = record;
  g.slotBase = uint32_t(gpuOptions_.maxRaysPerBatch + b.regionEntries);
  g.segmentBase = uint32_t(b.segmentCount);
  b.regionEntries += regionCount;
  b.segmentCount += record.segments;
  if (b.rayCount >= gpuOptions_.maxRaysPerBatch) flush();
}

// A batch whose discovery was submitted and whose integration waits for the next flush().
struct GpuIntegrator::PendingBatch {
  RegionDiscovery::Ticket ticket;
  BufferRange rays;
  uint32_t raysCopy = 0;
  uint32_t rayCount = 0;
  uint32_t segmentCount = 0;
};

// Closes the batch being filled: submits its region discovery without waiting, then
// integrates the batch before it, whose discovery has been queued for a whole batch by
// now. So the host never waits for the batch it just closed, and the GPU has the next
// discovery queued behind the integration it is running.
void GpuIntegrator::flush() {
  Batch& b = *batch_;
  if (b.rayCount == 0) return;
  timer_->batchBegin();
  auto next = std::make_unique<PendingBatch>();
  next->rayCount = b.rayCount;
  next->segmentCount = uint32_t(b.segmentCount);
  next->rays = rays_.end(b.rayCount * sizeof(GpuRay));
  next->raysCopy = rays_.currentCopy();
  next->ticket = discovery_->submit(next->rays, b.rayCount, b.origin, map_.regionSize(), b.regionEntries, b.segmentCount);
  rays_.submitted(next->raysCopy, scheduler_.lastSubmitted());
  batch_->clear();
  timer_->mark(&HostStageTimes::discoverySeconds);
  integratePending();
  pending_ = std::move(next);
  timer_->batchEnd();
}

// Integrates the pending batch, if any: its discovered regions in chunks of at most the
// cache's slots (one chunk unless the batch touches more regions than the cache holds).
// Every pass of a chunk updates only that chunk's voxels, and a voxel's updates depend only
// on the voxel, so the map is the one an unlimited cache gives whatever the chunking. Stop
// points (stop on first occupied) are judged over every chunk before any chunk is updated.
void GpuIntegrator::integratePending() {
  if (!pending_) return;
  const PendingBatch& p = *pending_;
  const std::vector<DiscoveredRegion> regions = discovery_->collect(pending_->ticket);
  timer_->mark(&HostStageTimes::discoverySeconds);
  const size_t slots = cache_.slotCount();
  const size_t chunks = (regions.size() + slots - 1) / slots;
  const bool stopSearch = passFlags() & kPassStopOnOccupied;
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
void GpuIntegrator::integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t c, const PendingBatch& batch,
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
  timer_->mark(&HostStageTimes::residencySeconds);

  std::vector<uint32_t> keySlots(keys.size());
  entrySlots_.assign(discovery_->setEntries(), gpu::kNotInChunk);
  for (size_t k = first; k < last; ++k) entrySlots_[regions[k].entry] = keySlots[k - first] = cache_.slotOf(keys[k - first]);
  const BufferRange entrySlots = discovery_->publishSlots(entrySlots_);
  const BufferRange raySlots = discovery_->raySlots(batch.ticket.copy).range();
  const BufferRange segments = discovery_->segments(batch.ticket.copy).range(0, std::max<uint64_t>(segmentCount, 1) * 8);

  const OccupancyModel& model = map_.model();
  OccupancyPush push{};
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
  push.flags = passFlags();

  std::vector<BufferUse> uses{reads(rays), reads(segments), reads(raySlots), reads(entrySlots),
                              reads(cache_.layerTableRange()), readsWrites(counters_), readsWrites(stop_)};
  for (const BufferRange& pool : cache_.poolRanges()) uses.push_back(readsWrites(pool));
  if (work != ChunkWork::Updates) {
    push.itemCount = segmentCount;
    scheduler_.dispatchThreads({"occupancy stop search", stopKernel_.get(), {}, push, uses}, segmentCount);
  }
  if (work != ChunkWork::StopSearch) {
    push.rayCount = rayCount;
    if (push.flags & gpu::kPassNdt) {
      recordNdtPasses(push, uses, keySlots, keys, segmentCount);
    } else if (push.flags & kPassSequential) {
      recordSequentialPasses(push, uses, keySlots, segmentCount);
    } else {
      push.itemCount = segmentCount;
      scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, uses}, segmentCount);
      push.itemCount = rayCount;
      scheduler_.dispatchThreads({"occupancy hit pass", hitKernel_.get(), {}, push, uses}, rayCount);
    }
  }
  rays_.submitted(batch.raysCopy, scheduler_.submit());  // the GPU starts while the host prepares the next chunk or batch
  timer_->mark(&HostStageTimes::uploadSeconds);
}

void GpuIntegrator::sync() {
  flush();
  timer_->batchBegin();
  integratePending();
  timer_->batchEnd();
  scheduler_.finish();
}

void GpuIntegrator::finish() {
  timer_->readbackBegin();
  flush();
  timer_->batchBegin();
  integratePending();
  timer_->batchEnd();
  cache_.syncToMap();
  synced_ = stats_.batches;
  const auto stripes = scheduler_.readback<uint64_t>(counters_.range()).get();
  uint64_t counters[kCounterStride] = {};
  for (uint32_t s = 0; s < kCounterStripes; ++s)
    for (uint32_t k = 0; k < kCounterStride; ++k) counters[k] += stripes[s * kCounterStride + k];
  stats_.voxelUpdates = counters[gpu::kCounterUpdates];
  stats_.droppedUpdates = counters[gpu::kCounterDropped];
  stats_.casRetries = counters[gpu::kCounterCasRetries];
  stats_.rewalkedSegments = counters[gpu::kCounterRewalks];
  stats_.ndtFoldInvocations = counters[gpu::kCounterNdtFoldInvocations];
  stats_.ndtSampleVoxels = counters[gpu::kCounterNdtSampleVoxels];
  timer_->readbackEnd();
  if (counters[gpu::kCounterMissingRegions] != 0)
    throw Error("internal error: " + std::to_string(counters[gpu::kCounterMissingRegions]) +
                " voxel updates found their region absent from the GPU cache");
}

}  // namespace voxen

#include "voxen/occupancy/gpu_integrator.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <exception>
#include <unordered_map>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/occupancy/host_stage_timer.hpp"
#include "voxen/occupancy/ndt_params.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/rejected_rays.hpp"
#include "voxen/primitives/radix_sort.hpp"
#include "voxen/primitives/stream_compaction.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

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

}  // namespace

struct GpuIntegrator::Batch {
  GpuRay* rays = nullptr;  // written in place (StreamedInput::begin) up to maxRaysPerBatch
  uint32_t rayCount = 0;
  std::vector<uint32_t> segments;  // (ray, segment) pairs
  std::vector<RegionKey> keys;     // the batch's distinct regions
  std::unordered_map<RegionKey, uint32_t, RegionKeyHash> keyIndex;  // region -> index in keys
  std::vector<uint32_t> rayRegions;  // every ray's regions in walk order (indices in keys), back to back
  // Neighbouring rays cross the same regions: a small direct-mapped cache of recent keys
  // spares most hash-map lookups.
  struct Recent {
    RegionKey key;
    uint32_t index = UINT32_MAX;  // UINT32_MAX: empty
  };
  std::array<Recent, 64> recent{};
  // Empties the batch but keeps its memory: reallocating per batch costs page faults.
  void clear() {
    rays = nullptr;
    rayCount = 0;
    segments.clear();
    keys.clear();
    keyIndex.clear();
    rayRegions.clear();
    recent.fill({});
  }
  // Index of a region in keys, or UINT32_MAX when the batch does not hold it yet.
  uint32_t find(const RegionKey& key) {
    Recent& entry = recent[gpuRegionHash(key) & 63u];
    if (entry.index != UINT32_MAX && entry.key == key) return entry.index;
    const auto it = keyIndex.find(key);
    if (it == keyIndex.end()) return UINT32_MAX;
    entry = {key, it->second};
    return it->second;
  }
  uint32_t add(const RegionKey& key) {
    const uint32_t index = uint32_t(keys.size());
    keys.push_back(key);
    keyIndex.emplace(key, index);
    recent[gpuRegionHash(key) & 63u] = {key, index};
    return index;
  }
};

GpuIntegrator::GpuIntegrator(Scheduler& scheduler, OccupancyMap& map, IntegrationOptions options,
                             GpuIntegratorOptions gpuOptions)
    : scheduler_(scheduler),
      map_(map),
      options_(options),
      gpuOptions_(gpuOptions),
      cache_(scheduler, map, gpuOptions.cacheBytes),
      rays_(scheduler, "occupancy rays", uint64_t(gpuOptions.maxRaysPerBatch) * sizeof(GpuRay)),
      segments_(scheduler, "occupancy segments", uint64_t(gpuOptions.maxRaysPerBatch) * 8),
      raySlots_(scheduler, "occupancy ray region slots", uint64_t(gpuOptions.maxRaysPerBatch) * 4 * 4),
      batch_(std::make_unique<Batch>()),
      timer_(std::make_unique<HostStageTimer>()) {
  if (gpuOptions_.maxRaysPerBatch == 0) throw Error("batch size must be at least 1 ray");
  if (gpuOptions_.maxCrossingsPerSegment < 8 || gpuOptions_.maxCrossingsPerSegment > 4096)
    throw Error("segment length must be between 8 and 4096 crossings");
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
  if (std::uncaught_exceptions() == 0 && (batch_->rayCount > 0 || stats_.batches > synced_)) {
    try {
      finish();
    } catch (const std::exception& e) {
      logMessage(LogLevel::Error, std::string("GpuIntegrator could not copy its regions back: ") + e.what());
    }
  }
}

void GpuIntegrator::integrate(std::span<const Ray> rays) {
  if (rays.empty()) return;
  if (!timeOriginSet_ && map_.regions().empty()) map_.setTimeOrigin(rays.front().time);
  timeOriginSet_ = true;
  timer_->raysBegin();
  for (const Ray& ray : rays) addRay(ray);
  timer_->raysEnd();
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
    throw Error("the GPU cache holds more voxels than 32-bit hit keys reach: lower --gpu-cache-mb");
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
    throw Error("the GPU integrates NDT in two-phase order only: set the update order to two-phase "
                "(--update-order two-phase), or use the CPU reference for the sequential order");
  if (options_.flags & kRayStopOnFirstOccupied) throw Error("NDT integration does not support stop-on-first-occupied");
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
  if (map_.layers() & (kLayerTraversal | kLayerTouchTime)) recordHitKeysPass(push, uses);
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
  uint32_t flags = map_.layers();
  if (options_.ndt.mode != NdtMode::Off) {
    flags |= gpu::kPassNdt;
    if (options_.ndt.mode == NdtMode::Tm) flags |= gpu::kPassNdtTm;
  } else if (options_.order == UpdateOrder::Sequential) {
    flags |= kPassSequential;
  }
  if (!(options_.flags & kRayForwardWalk)) flags |= kPassReverse;
  if (options_.flags & kRayStopOnFirstOccupied) flags |= kPassStopOnOccupied;
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

void GpuIntegrator::addRay(const Ray& ray) {
  // About one ray in 64 is timed stage by stage, to split the rays' CPU time between
  // preparation and discovery (host_stage_timer.hpp says why not every ray).
  using SteadyClock = HostStageTimer::SteadyClock;
  const bool sampled = timer_->sampleThisRay();
  const SteadyClock::time_point t0 = sampled ? SteadyClock::now() : SteadyClock::time_point{};
  const uint64_t rayIndex = raysSeen_++;
  // Rays that cannot be walked are skipped and counted before anything is allocated for
  // them, exactly as the CPU reference does.
  const RayFault fault = checkRay(ray, map_.model(), options_);
  if (fault != RayFault::None) {
    noteRejectedRay(stats_, rayIndex, ray, fault);
    if (sampled) timer_->addSample(SteadyClock::now() - t0, 1, {});
    return;
  }
  bool clipped = false;
  const PreparedRay r = prepareRay(ray, map_.model(), options_, &clipped);
  const SteadyClock::time_point t1 = sampled ? SteadyClock::now() : SteadyClock::time_point{};
  // The region count comes from the end points: a ray too long for the cache is refused
  // before its region list is built (that list alone could exhaust memory).
  const uint64_t regionCount = regionCountOnRay(r, map_.regionSize());
  if (regionCount > cache_.slotCount())
    throw Error(rayTooLongMessage(rayIndex, ray, regionCount, cache_.slotCount(), "the GPU cache holds only",
                                  options_.maxRange > 0.0 ? "raise --gpu-cache-mb"
                                                          : "raise --gpu-cache-mb or set --max-range"));
  stats_.clippedRays += clipped;
  ++stats_.rays;
  regionsOnRay(r, map_.regionSize(), rayKeys_);
  const std::vector<RegionKey>& keys = rayKeys_;
  // Which of the ray's regions the batch already holds (a ray enters each region once).
  rayKeyIndex_.resize(keys.size());
  size_t added = 0;
  for (size_t k = 0; k < keys.size(); ++k) added += (rayKeyIndex_[k] = batch_->find(keys[k])) == UINT32_MAX;
  const uint32_t segments = segmentCount(r, gpuOptions_.maxCrossingsPerSegment);
  // Batches end on the ray count or the cache's capacity only (the segment buffer grows),
  // so the CPU reference fed the same batches builds the same map.
  const bool flushed = batch_->keys.size() + added > cache_.slotCount();
  if (flushed) {
    flush();
    std::fill(rayKeyIndex_.begin(), rayKeyIndex_.end(), UINT32_MAX);
  }
  for (size_t k = 0; k < keys.size(); ++k)
    if (rayKeyIndex_[k] == UINT32_MAX) rayKeyIndex_[k] = batch_->add(keys[k]);
  const uint32_t index = batch_->rayCount;
  const uint32_t slotBase = uint32_t(batch_->rayRegions.size());
  batch_->rayRegions.insert(batch_->rayRegions.end(), rayKeyIndex_.begin(), rayKeyIndex_.end());
  for (uint32_t s = 0; s < segments; ++s) {
    batch_->segments.push_back(index);
    batch_->segments.push_back(s);
  }
  const SteadyClock::time_point t2 = sampled ? SteadyClock::now() : SteadyClock::time_point{};

  // A batch's first ray maps the rays' buffer, which may wait for the GPU to release it.
  const bool startsBatch = index == 0;
  if (startsBatch)
    batch_->rays = reinterpret_cast<GpuRay*>(rays_.begin(size_t(gpuOptions_.maxRaysPerBatch) * sizeof(GpuRay)));
  GpuRay g{};
  g.o = {r.o[0], r.o[1], r.o[2]};
  g.intensity = r.intensity;
  g.d = {r.d[0], r.d[1], r.d[2]};
  std::memcpy(&g.touchTime, &r.touchTime, sizeof(double));
  g.meanPacked = r.meanPacked;
  g.start = {r.start.x, r.start.y, r.start.z};
  g.end = {r.end.x, r.end.y, r.end.z};
  g.flags = r.flags;
  g.segments = segments;
  g.slotBase = slotBase;
  g.regionCount = uint32_t(keys.size());
  batch_->rays[index] = g;
  ++batch_->rayCount;
  // Samples that may hold a wait for the GPU (wall time, not work) are left out.
  if (sampled && !flushed && !startsBatch) {
    const SteadyClock::time_point t3 = SteadyClock::now();
    timer_->addSample((t1 - t0) + (t3 - t2), 2, t2 - t1);
  }
  if (batch_->rayCount >= gpuOptions_.maxRaysPerBatch) flush();
}

void GpuIntegrator::flush() {
  Batch& b = *batch_;
  if (b.rayCount == 0) return;
  timer_->batchBegin();
  cache_.makeResident(b.keys, ++batchStamp_);
  // Every region of the batch gets updates: their occupancy changes (for derived layers).
  for (const RegionKey& key : b.keys) map_.markOccupancyChanged(key);
  timer_->batchResident();
  const uint32_t rayCount = b.rayCount;
  const uint32_t segmentCount = uint32_t(b.segments.size() / 2);
  const BufferRange rays = rays_.end(rayCount * sizeof(GpuRay));
  // Segments stay in input order: sensor data arrives in scan order, whose neighbouring
  // rays already walk similar lengths through nearby voxels. (Sorting by sample cell was
  // measured: it helps shuffled clouds on lavapipe but costs more than it saves on scans.)
  const BufferRange segments = segments_.write(b.segments.data(), segmentCount * 8ull);
  // The rays' region lists as cache slots, written in place like the rays.
  std::vector<uint32_t> keySlots(b.keys.size());
  for (size_t k = 0; k < keySlots.size(); ++k) keySlots[k] = cache_.slotOf(b.keys[k]);
  const size_t slotBytes = b.rayRegions.size() * 4;
  auto* slots = reinterpret_cast<uint32_t*>(raySlots_.begin(slotBytes));
  for (size_t i = 0; i < b.rayRegions.size(); ++i) slots[i] = keySlots[b.rayRegions[i]];
  const BufferRange raySlots = raySlots_.end(slotBytes);

  const OccupancyModel& model = map_.model();
  OccupancyPush push{};
  push.rays = rays.address;
  push.segments = segments.address;
  push.layers = cache_.layerTableAddress();
  push.regionTable = cache_.tableAddress();
  push.counters = counters_.address();
  push.stop = stop_.address();
  push.raySlots = raySlots.address;
  push.tableMask = cache_.tableMask();
  push.maxProbe = cache_.maxProbe();
  push.regionSize = model.regionSize;
  push.hitValue = model.hitValue();
  push.missValue = model.missValue();
  push.clampMin = model.clampMin;
  push.clampMax = model.clampMax;
  push.threshold = model.thresholdValue();
  push.flags = passFlags();
  const bool stopSearch = push.flags & kPassStopOnOccupied;

  std::vector<BufferUse> uses{reads(rays), reads(segments), reads(raySlots), reads(cache_.tableRange()),
                              reads(cache_.layerTableRange()), readsWrites(counters_), readsWrites(stop_)};
  for (const BufferRange& pool : cache_.poolRanges()) uses.push_back(readsWrites(pool));
  if (stopSearch) {
    scheduler_.fill(stop_.range(0, rayCount * 4ull), kInfinityBits);
    push.itemCount = segmentCount;
    scheduler_.dispatchThreads({"occupancy stop search", stopKernel_.get(), {}, push, uses}, segmentCount);
  }
  push.rayCount = rayCount;
  if (push.flags & gpu::kPassNdt) {
    recordNdtPasses(push, uses, keySlots, b.keys, segmentCount);
  } else if (push.flags & kPassSequential) {
    recordSequentialPasses(push, uses, keySlots, segmentCount);
  } else {
    push.itemCount = segmentCount;
    scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, uses}, segmentCount);
    push.itemCount = rayCount;
    scheduler_.dispatchThreads({"occupancy hit pass", hitKernel_.get(), {}, push, uses}, rayCount);
  }
  const uint64_t submitted = scheduler_.submit();  // the GPU starts while the host prepares the next batch
  rays_.submitted(submitted);
  segments_.submitted(submitted);
  raySlots_.submitted(submitted);
  ++stats_.batches;
  batch_->clear();
  timer_->batchEnd();
}

void GpuIntegrator::finish() {
  timer_->readbackBegin();
  flush();
  cache_.syncToMap();
  synced_ = stats_.batches;
  const auto stripes = scheduler_.readback<uint64_t>(counters_.range()).get();
  uint64_t counters[kCounterStride] = {};
  for (uint32_t s = 0; s < kCounterStripes; ++s)
    for (uint32_t k = 0; k < kCounterStride; ++k) counters[k] += stripes[s * kCounterStride + k];
  stats_.voxelUpdates = counters[gpu::kCounterUpdates];
  stats_.droppedUpdates = counters[gpu::kCounterDropped];
  stats_.rewalkedSegments = counters[gpu::kCounterRewalks];
  stats_.ndtFoldInvocations = counters[gpu::kCounterNdtFoldInvocations];
  stats_.ndtSampleVoxels = counters[gpu::kCounterNdtSampleVoxels];
  timer_->readbackEnd();
  if (counters[gpu::kCounterMissingRegions] != 0)
    throw Error("internal error: " + std::to_string(counters[gpu::kCounterMissingRegions]) +
                " voxel updates found their region absent from the GPU cache");
}

}  // namespace voxen

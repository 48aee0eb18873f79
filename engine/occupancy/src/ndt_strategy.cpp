#include "voxen/occupancy/ndt_strategy.hpp"

#include <algorithm>
#include <bit>

#include "voxen/gpu/occupancy/ndt_miss_order.h"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/occupancy/ndt_params.hpp"
#include "voxen/primitives/exclusive_scan.hpp"
#include "voxen/primitives/radix_sort.hpp"
#include "voxen/primitives/stream_compaction.hpp"

namespace voxen {

namespace {

// What NDT cannot do, refused before anything is allocated.
const StrategySetup& checkedNdtSetup(const StrategySetup& setup) {
  checkNdtMap(setup.options.ndt, setup.map.layout());
  if (setup.options.order != UpdateOrder::TwoPhase)
    throw Error("the GPU integrates NDT in two-phase order only (UpdateOrder::TwoPhase); the CPU reference has the "
                "sequential order too");
  if (setup.options.flags.has(RayFlag::StopOnFirstOccupied))
    throw Error("NDT integration does not support stop-on-first-occupied");
  return setup;
}

}  // namespace

NdtStrategy::NdtStrategy(const StrategySetup& setup)
    : scheduler_(setup.scheduler),
      map_(setup.map),
      capacity_(setup.gpuOptions.maxRaysPerBatch),
      slots_(setup.cacheSlots),
      foldLimit_(setup.options.ndt.foldLimit),
      grouping_(checkedNdtSetup(setup)),
      compaction_(std::make_unique<StreamCompaction>(setup.scheduler)),
      missCapacity_(gpu::ndtMissCapacity(capacity_)) {
  missSort_ = std::make_unique<RadixSort>(scheduler_, missCapacity_);
  rayScan_ = std::make_unique<ExclusiveScan>(scheduler_);
  gpu::NdtParams params = ndtParams(setup.options.ndt, map_.model());
  params.levels = (capacity_ + params.foldLimit - 1) / params.foldLimit;
  params.slotKeys = gpu::ndtSlotKeys(params.levels, capacity_, params.foldLimit);
  levels_ = params.levels;
  missBase_ = gpu::ndtMissBase(params.levels, capacity_, params.foldLimit, slots_);
  // The overflow sums (gpu::ndtMissSums): one int64 per voxel of the cache's pools, cleared
  // on the device before the first overflow (kNdtMissSumsReady), never touched without one.
  const uint64_t regionVoxels = uint64_t(map_.regionSize()) * map_.regionSize() * map_.regionSize();
  const uint64_t sumsWord = missBase_ + gpu::ndtMissSums(params.levels, capacity_, params.foldLimit);
  ndt_ = Buffer(scheduler_.device(), "NDT parameters, run lists and free-space order",
                (sumsWord + 2 * uint64_t(slots_) * regionVoxels) * 4);
  scheduler_.fill(ndt_.range((missBase_ + gpu::kNdtMissSumsReady) * 4, 4), 0);
  slotKeysOffset_ = uint64_t(params.slotKeys) * 4;
  slotKeys_.assign(size_t(slots_) * 4, 0);
  // The chunk levels' empty state: each level's header {0, 1, 1, 0}.
  const uint32_t levelWords = 4 + gpu::ndtLevelCapacity(capacity_, params.foldLimit);
  levelTemplate_.assign(size_t(params.levels > 1 ? params.levels - 1 : 0) * levelWords, 0);
  for (size_t h = 0; h < levelTemplate_.size(); h += levelWords) levelTemplate_[h + 1] = levelTemplate_[h + 2] = 1;
  scheduler_.upload(ndt_.range(0, sizeof(params)), &params, sizeof(params));
  missKernel_ = occupancyKernel(scheduler_, "occupancy/integrate_miss.comp", setup.passFlags);
  runsKernel_ = occupancyKernel(scheduler_, "occupancy/ndt_runs.comp", setup.passFlags);
  missArgsKernel_ = occupancyKernel(scheduler_, "occupancy/ndt_miss_args.comp", setup.passFlags);
  // The counting sort's two phases: specialization constant 1 of ndt_miss_gather.comp (kPlace).
  missCountKernel_ =
      scheduler_.library().kernel("occupancy/ndt_miss_gather.comp", KernelVariant{{}, {{0u, setup.passFlags}, {1u, 0u}}});
  missPlaceKernel_ =
      scheduler_.library().kernel("occupancy/ndt_miss_gather.comp", KernelVariant{{}, {{0u, setup.passFlags}, {1u, 1u}}});
  missApplyKernel_ = occupancyKernel(scheduler_, "occupancy/ndt_miss_apply.comp", setup.passFlags);
  missSumsKernel_ = occupancyKernel(scheduler_, "occupancy/ndt_miss_sums.comp", setup.passFlags);
  foldKernel_ = occupancyKernel(scheduler_, "occupancy/ndt_fold.comp", setup.passFlags);
  // The overflow's passes: the miss pass specialised as the sums walk, and the sums cleared.
  sumWalkKernel_ = scheduler_.library().kernel("occupancy/integrate_miss.comp",
                                               KernelVariant{{}, {{0u, setup.passFlags}, {1u, 1u}}});
  sumsClearKernel_ = scheduler_.library().kernel("occupancy/ndt_miss_sums.comp",
                                                 KernelVariant{{}, {{0u, setup.passFlags}, {1u, 1u}}});
}

NdtStrategy::~NdtStrategy() = default;

// The free-space pass, which applies the plain miss to voxels without a Gaussian (the same
// delta every time, so its compare-and-swaps give the same value in any order), lists the
// others and writes the hit keys; the hit keys pass only when the map has layers whose hit
// updates it applies; the sort of the keys; the listed free-space updates in their fixed
// order (recordFreeSpaceOrder); then each voxel's run of hits found and listed (ndt_runs.comp
// and the compaction), and one invocation per distinct sample voxel folding its samples in
// input order (ndt_fold.comp), in chunks of foldLimit samples: level k continues the runs
// longer than k chunks.
//
// When the list overflows (a stripe offered more updates than it holds: about kNdtMissesPerRay
// per ray of the batch capacity, ndt_miss_order.h), which updates got listed depends on the
// GPU's scheduling, so the list is dropped (nothing sorted or applied from it): the segments
// that found it full finish their plain misses by a second walk (IntegrationStats::
// rewalkedSegments counts them), then every segment is walked again and adds each free-space
// update of a voxel with a Gaussian to the voxel's integer sum (ndtMissTerm: 2^-32 log-odds
// units, 8 bytes per pool voxel, cleared before the first overflow), and ndt_miss_sums.comp
// applies each sum with one addition and one clamp. Integer additions commute, so such a
// chunk's map is the same in every run; against the CPU reference's float additions in ray
// order it differs in the last bits only (every free-space delta lowers a value, so one clamp
// at the end lands where a clamp per update does). Without overflow the three passes are
// indirect dispatches of no workgroups.
void NdtStrategy::recordUpdates(const ChunkPasses& chunk) {
  gpu::OccupancyPush push = chunk.push;
  std::vector<BufferUse> uses = chunk.uses;
  const uint32_t rayCount = push.rayCount;
  push.ndt = ndt_.address();
  uses.push_back(readsWrites(ndt_.range()));
  for (size_t b = 0; b < chunk.keySlots.size(); ++b) {
    int32_t* entry = reinterpret_cast<int32_t*>(&slotKeys_[size_t(chunk.keySlots[b]) * 4]);
    entry[0] = chunk.keys[b].x, entry[1] = chunk.keys[b].y, entry[2] = chunk.keys[b].z;
  }
  scheduler_.upload(ndt_.range(slotKeysOffset_, slotKeys_.size() * 4), slotKeys_.data(), slotKeys_.size() * 4);
  const uint32_t keyBits = grouping_.prepare(push, uses, chunk.keySlots);
  // Empty lists: the deferred misses' stripe counts, and the chunk levels (each an indirect
  // dispatch of x workgroups, 1, 1, and a count).
  scheduler_.fill(grouping_.words(gpu::orderedMissHeader(capacity_, slots_), gpu::kDeferredHeaderWords), 0);
  if (!levelTemplate_.empty())
    scheduler_.upload(ndt_.range(uint64_t(gpu::ndtLevelHeader(1, capacity_, foldLimit_)) * 4, levelTemplate_.size() * 4),
                      levelTemplate_.data(), levelTemplate_.size() * 4);
  push.itemCount = chunk.segmentCount;
  scheduler_.dispatchThreads({"NDT free-space pass", missKernel_.get(), {}, push, uses}, chunk.segmentCount);
  if (map_.layers().hasAny(kTraversalLayer | kTouchTimeLayer)) grouping_.recordKeysPass(push, uses);
  grouping_.recordSort(rayCount, keyBits);
  grouping_.recordListSizes(push, uses);
  recordFreeSpaceOrder(push, uses, keyBits);
  push.itemCount = rayCount;
  scheduler_.dispatchThreads({"NDT runs", runsKernel_.get(), {}, push, uses}, rayCount);
  const BufferRange runArgs = ndt_.range(gpu::kNdtRunArgs * 4ull, 12);
  compaction_->record(grouping_.array(gpu::kOrderedLeading, rayCount), grouping_.array(gpu::kOrderedTrailing, rayCount),
                      rayCount, ndt_.range(gpu::kNdtRunTotal * 4ull, 4), &runArgs, 64);
  for (uint32_t level = 0; uint64_t(level) * foldLimit_ < rayCount; ++level) {
    push.itemCount = level;
    const BufferRange args =
        level == 0 ? runArgs : ndt_.range(uint64_t(gpu::ndtLevelHeader(level, capacity_, foldLimit_)) * 4, 12);
    scheduler_.dispatchIndirect({level == 0 ? "NDT hit fold" : "NDT hit fold (long runs)", foldKernel_.get(), {}, push, uses},
                                args);
  }
}

// The listed free-space updates (pool index, ray) gathered into arrays in ray order (a
// counting sort: ndt_miss_gather.comp counts each ray's updates, the scan gives each ray its
// first position, the second gather places them), sorted stably by voxel key (so by voxel,
// and per voxel by ray: the CPU reference's two-phase order), and applied by one invocation
// per voxel (ndt_miss_apply.comp), in chunks of foldLimit updates like the hit fold's. The
// sort's item count is the device's. The counting sort replaces a radix sort by ray (three
// digit passes over the list at the default batch) with two passes over the list and a scan
// over the batch's rays.
void NdtStrategy::recordFreeSpaceOrder(const gpu::OccupancyPush& push, const std::vector<BufferUse>& uses,
                                       uint32_t keyBits) {
  const uint32_t foldLimit = foldLimit_;
  const auto words = [&](uint64_t first, uint64_t count) { return ndt_.range((missBase_ + first) * 4, count * 4); };
  if (levels_ > 1)
    scheduler_.fill(words(gpu::ndtMissLevelHeader(1, capacity_, foldLimit),
                          uint64_t(levels_ - 1) * (4 + gpu::ndtMissLevelCapacity(capacity_, foldLimit))),
                    0);
  scheduler_.dispatch({"NDT free-space order sizes", missArgsKernel_.get(), {1, 1, 1}, push, uses});
  // On overflow only (else no workgroups): the sums cleared before the first, and every
  // segment walked again to sum its free-space updates.
  scheduler_.dispatchIndirect({"NDT free-space overflow sums cleared", sumsClearKernel_.get(), {}, push, uses},
                              words(gpu::kNdtMissClearArgs, 3));
  scheduler_.dispatchIndirect({"NDT free-space overflow walk", sumWalkKernel_.get(), {}, push, uses},
                              words(gpu::kNdtMissSumWalkArgs, 3));
  const BufferRange rayStarts = words(gpu::ndtMissRayStarts(levels_, capacity_, foldLimit), push.rayCount);
  scheduler_.fill(rayStarts, 0);
  scheduler_.dispatchIndirect({"NDT free-space count by ray", missCountKernel_.get(), {}, push, uses},
                              grouping_.missArgs());
  rayScan_->record(rayStarts, rayStarts, push.rayCount);
  scheduler_.dispatchIndirect({"NDT free-space gather", missPlaceKernel_.get(), {}, push, uses}, grouping_.missArgs());
  const BufferRange total = words(gpu::kNdtMissTotal, 1);
  const BufferRange rays = words(gpu::ndtMissRays(levels_, capacity_, foldLimit), missCapacity_);
  const BufferRange keys = words(gpu::ndtMissKeys(levels_, capacity_, foldLimit), missCapacity_);
  missSort_->record(keys, rays, missCapacity_, keyBits, &total);  // by voxel, rays in order
  gpu::OccupancyPush levelPush = push;
  for (uint32_t level = 0; uint64_t(level) * foldLimit < push.rayCount; ++level) {
    levelPush.itemCount = level;
    const BufferRange args = level == 0 ? words(gpu::kNdtMissApplyArgs, 3)
                                        : words(gpu::ndtMissLevelHeader(level, capacity_, foldLimit), 3);
    scheduler_.dispatchIndirect({level == 0 ? "NDT free-space apply" : "NDT free-space apply (long runs)",
                                 missApplyKernel_.get(), {}, levelPush, uses},
                                args);
  }
  scheduler_.dispatchIndirect({"NDT free-space overflow sums", missSumsKernel_.get(), {}, push, uses},
                              words(gpu::kNdtMissSumArgs, 3));
}

}  // namespace voxen

#include "voxen/clearance/gpu_clearance.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>

#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vector_relational.hpp>
#include <cstring>
#include <set>

#include "voxen/clearance/voxel_squares.hpp"
#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/memory_stats.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/map/region_cache.hpp"

namespace voxen {

const RegionCacheStats& GpuClearance::cacheStats() const { return cache_->stats(); }

namespace {

std::string blockText(const glm::ivec3& size) {
  return std::to_string(size.x) + " x " + std::to_string(size.y) + " x " + std::to_string(size.z);
}

std::string metres(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g m", value);
  return text;
}

}  // namespace

GpuClearance::GpuClearance(Scheduler& scheduler, OccupancyMap& map, ClearanceOptions options, GpuClearanceOptions gpuOptions)
    : scheduler_(scheduler), map_(map), options_(options), gpuOptions_(std::move(gpuOptions)) {
  options_.validate(map.model());
  prepareClearance(map_, options_);  // the layer before the cache, which has a pool per layer
  memoryLimit_ = gpuOptions_.memoryLimitBytes ? gpuOptions_.memoryLimitBytes : defaultMemoryBudgetBytes();
  const glm::ivec3 size = glm::ivec3(map.regionSize()) + 2 * options_.padding(map.model());
  const uint64_t n = uint64_t(map.regionSize());
  const BlockBuffers per = blockBuffers();
  blockBytes_ = per.field + per.other + per.list;
  const uint64_t perRegion = RegionCache::bytesPerRegion(map_);
  if (blockBytes_ + perRegion > memoryLimit_) {
    const uint64_t exactBytes = 4 * n * uint64_t(size.y) * uint64_t(size.z);
    throw Error("clearance: the " + std::string(clearanceTechniqueName(options_.technique)) + " technique at a range of " +
                metres(options_.range) + " needs " + mebibytes(blockBytes_) + " per target region (its block of " +
                blockText(size) + " voxels), more than the memory limit of " + mebibytes(memoryLimit_) +
                " allows with the region cache: " +
                (options_.technique == ClearanceTechnique::Exact
                     ? std::string("lower the range")
                     : "use the exact technique (" + mebibytes(exactBytes) + " per target here), lower the range") +
                ", or " + gpuOptions_.memoryHint);
  }
  // Indices into the batch's buffers are 32-bit (in elements).
  const uint64_t byIndex = std::max<uint64_t>(1, (uint64_t(1) << 32) / (std::max<uint64_t>(per.gridVoxels, 1) * 2));
  const uint64_t byMemory = (memoryLimit_ - perRegion) / blockBytes_;
  maxBlocks_ = uint32_t(std::clamp<uint64_t>(gpuOptions_.fieldBytes / blockBytes_, 1, std::min<uint64_t>(byIndex, byMemory)));
  allocateBlocks();
  const uint64_t cacheBytes = std::min(gpuOptions_.cacheBytes, memoryLimit_ - uint64_t(maxBlocks_) * blockBytes_);
  cache_ = std::make_unique<RegionCache>(scheduler, map_, std::max(cacheBytes, perRegion));
  ShaderLibrary& library = scheduler.library();
  if (options_.technique == ClearanceTechnique::Exact) {
    // One scale on every axis: the transform in integer squared voxel distances, the metres
    // from the VoxelSquares table (no division or root per voxel); else in float metres^2.
    KernelVariant variant;
    if (const std::optional<VoxelSquares> squares = voxelSquares(map_.model(), options_)) {
      variant.defines = {{"CLEARANCE_VOXEL_SQUARES", "1"}};
      maxSquared_ = squares->maxSquared;
      metres_ = Buffer(scheduler.device(), "clearance metres per squared voxel distance", squares->metres.size() * 4);
      scheduler.upload(metres_.range(), std::span<const float>(squares->metres));
    }
    seedKernel_ = library.kernel("clearance/clearance_seed.comp", variant);
    envelopeKernel_ = library.kernel("clearance/clearance_envelope.comp", variant);
  } else {
    keySeedKernel_ = library.kernel("clearance/clearance_key_seed.comp");
    propagateKernel_ = library.kernel("clearance/clearance_propagate.comp");
    roiSeedKernel_ = library.kernel("clearance/clearance_roi_seed.comp");
    openListKernel_ = library.kernel("clearance/clearance_open_list.comp");
    listResetKernel_ = library.kernel("clearance/clearance_list_reset.comp");
    keyOutputKernel_ = library.kernel("clearance/clearance_key_output.comp");
    stepArgsKernel_ = library.kernel("clearance/clearance_step_args.comp");
    steps_ = Buffer(scheduler.device(), "clearance step sizes", 16);
  }
}

// Bytes per block: the exact field (a float per voxel at the x inside the region); keys (8
// bytes per grid voxel) twice for the ping-pong techniques, or keys, stamps and two lists
// for the open list.
GpuClearance::BlockBuffers GpuClearance::blockBuffers() const {
  const glm::ivec3 pad = options_.padding(map_.model());
  const uint64_t n = uint64_t(map_.regionSize());
  const uint64_t blockVoxels = (n + 2 * pad.x) * (n + 2 * pad.y) * (n + 2 * pad.z);
  BlockBuffers b;
  b.gridVoxels = n * (n + 2 * pad.y) * (n + 2 * pad.z);
  b.field = 4 * b.gridVoxels;
  switch (options_.technique) {
    case ClearanceTechnique::Exact: break;
    case ClearanceTechnique::Neighbour: b.field = b.other = 8 * blockVoxels, b.gridVoxels = blockVoxels; break;
    case ClearanceTechnique::Roi: b.field = b.other = 8 * n * n * n, b.gridVoxels = n * n * n; break;
    case ClearanceTechnique::OpenList:
      b.field = 8 * blockVoxels, b.other = 4 * blockVoxels, b.list = 8 * blockVoxels, b.gridVoxels = blockVoxels;
      break;
  }
  return b;
}

// The batch's buffers for maxBlocks_ blocks.
void GpuClearance::allocateBlocks() {
  const BlockBuffers per = blockBuffers();
  Device& device = scheduler_.device();
  field_ = Buffer();
  other_ = Buffer();
  lists_ = Buffer();
  field_ = Buffer(device, "clearance field", per.field * maxBlocks_);
  if (per.other) other_ = Buffer(device, "clearance keys (ping-pong) or stamps", per.other * maxBlocks_);
  if (per.list) lists_ = Buffer(device, "clearance open lists", gpu::kOpenListHeaderWords * 4 + per.list * maxBlocks_);
  targets_ = Buffer(device, "clearance targets", uint64_t(maxBlocks_) * 16 * gpu::kClearanceTargetVec4s);
}

size_t GpuClearance::cacheRegions() const { return cache_->slotCount(); }

void GpuClearance::ensureCacheSlots(size_t slots) {
  if (cache_->slotCount() >= slots) return;
  const uint64_t perRegion = RegionCache::bytesPerRegion(map_);
  const uint64_t needed = uint64_t(slots) * perRegion;
  if (needed + blockBytes_ > memoryLimit_)
    throw Error("clearance: a target region and the regions within its range of " + metres(options_.range) +
                " that the map has are " + std::to_string(slots) + " regions, " + mebibytes(needed) +
                " in the GPU region cache (" + mebibytes(perRegion) + " each with the map's layers), more than the memory "
                "limit of " + mebibytes(memoryLimit_) + " allows with one block of " + mebibytes(blockBytes_) +
                ": lower the range or " + gpuOptions_.memoryHint);
  // Fewer blocks per batch when the cache needs their room.
  const uint32_t blocks = uint32_t(std::min<uint64_t>(maxBlocks_, (memoryLimit_ - needed) / blockBytes_));
  if (blocks != maxBlocks_) {
    maxBlocks_ = blocks;
    allocateBlocks();
  }
  // Room for some neighbours of the next targets too, so that batches share them.
  const uint64_t room = memoryLimit_ - uint64_t(maxBlocks_) * blockBytes_;
  const uint64_t bytes = std::min(room, std::max(needed + needed / 2, gpuOptions_.cacheBytes));
  cache_.reset();  // empty (compute releases it at the end): nothing to copy back
  cache_ = std::make_unique<RegionCache>(scheduler_, map_, bytes);
}

double GpuClearance::relativeWork() const {
  const glm::dvec3 pad(options_.padding(map_.model()));
  const double n = map_.regionSize();
  const glm::dvec3 size = glm::dvec3(n) + 2.0 * pad;
  // The exact passes read about n + a few voxels per line along x, and each y and z line
  // about three times its length.
  const double exact = size.y * size.z * (n + 4.0) + n * size.z * size.y * 3.0 + n * n * size.z * 3.0;
  const double steps = iterations();
  switch (options_.technique) {
    case ClearanceTechnique::Exact: return 1.0;
    case ClearanceTechnique::Roi: return (size.y * size.z * 2.0 * pad.x + steps * n * n * n * 7.0) / exact;
    case ClearanceTechnique::Neighbour: return steps * size.x * size.y * size.z * 7.0 / exact;
    case ClearanceTechnique::OpenList: return (size.x * size.y * size.z * 7.0 * 3.0 + steps * 2.0 * 1024.0) / exact;
  }
  return 1.0;
}

uint32_t GpuClearance::iterations() const {
  // An obstacle within range is at most |dx| + |dy| + |dz| face steps away, and over the
  // offsets with sum w_a d_a^2 <= range^2 that sum peaks at sqrt(pad_x^2 + pad_y^2 + pad_z^2)
  // (Cauchy-Schwarz; pad_a = range / sqrt(w_a)).
  const glm::dvec3 pad(options_.padding(map_.model()));
  const uint32_t steps = uint32_t(std::ceil(std::sqrt(glm::dot(pad, pad))));
  if (options_.technique == ClearanceTechnique::Roi)  // within the region: at most corner to corner
    return std::min(steps, uint32_t(3 * (map_.regionSize() - 1)));
  return options_.technique == ClearanceTechnique::OpenList ? steps + 4 : steps;
}

GpuClearance::~GpuClearance() = default;

gpu::ClearancePush GpuClearance::batchPush(uint32_t blocks) const {
  const OccupancyModel& model = map_.model();
  const glm::ivec3 pad = options_.padding(model);
  gpu::ClearancePush push{};
  push.layers = cache_->layerTableAddress();
  push.regionTable = cache_->tableAddress();
  push.targets = targets_.address();
  push.field = field_.address();
  push.other = other_.size() ? other_.address() : 0;
  push.tableMask = cache_->tableMask();
  push.maxProbe = cache_->maxProbe();
  push.regionSize = model.regionSize;
  push.clearanceLayer = clearanceLayer().index();
  push.padX = pad.x, push.padY = pad.y, push.padZ = pad.z;
  push.blocks = blocks;
  float weights[3];
  for (int a = 0; a < 3; ++a) {
    const double step = model.resolution * options_.axisScale[a];
    weights[a] = float(step * step);
  }
  push.weightX = weights[0], push.weightY = weights[1], push.weightZ = weights[2];
  push.rangeSquared = float(options_.range * options_.range);
  if (metres_.size()) {
    push.rangeSquared = float(maxSquared_);  // below 2^24: exact
    push.metres = metres_.address();
  }
  const float threshold = model.thresholdValue();
  std::memcpy(&push.threshold, &threshold, 4);
  const ObstacleBand band = options_.band(model);
  push.flags = (options_.unknownFree ? gpu::kClearanceUnknownFree : 0u) | (band.hasLow ? gpu::kClearanceBandLow : 0u) |
               (band.hasHigh ? gpu::kClearanceBandHigh : 0u);
  push.bandLow = band.low;
  push.bandHigh = band.high;
  return push;
}

// The exact transform: x (with the obstacles), y and z passes, over the part of each block
// that the target's voxels need (the whole block for a whole region): the x pass every line
// along x within the padding of them in y and z, the y pass the lines at their x within the
// padding in z, the z pass the lines at their x and y. Each pass runs as many invocations per
// block as the batch's largest part needs (push.iteration); the others return at once.
void GpuClearance::recordExact(gpu::ClearancePush push, const std::vector<ClearanceTarget>& targets,
                               const std::vector<BufferUse>& uses) {
  const glm::ivec3 pad(push.padX, push.padY, push.padZ);
  uint64_t xLines = 0, yLines = 0, zLines = 0;
  for (const ClearanceTarget& t : targets) {
    const glm::ivec3 size = t.hi - t.lo, reach = size + 2 * pad;
    xLines = std::max(xLines, uint64_t(reach.y) * uint64_t(reach.z));
    yLines = std::max(yLines, uint64_t(size.x) * uint64_t(reach.z));
    zLines = std::max(zLines, uint64_t(size.x) * uint64_t(size.y));
  }
  const uint64_t blocks = push.blocks;
  push.axis = 0, push.iteration = uint32_t(xLines);
  scheduler_.dispatchThreads({"clearance x (obstacles)", seedKernel_.get(), {}, push, uses}, xLines * blocks);
  push.axis = 1, push.iteration = uint32_t(yLines);
  scheduler_.dispatchThreads({"clearance y", envelopeKernel_.get(), {}, push, uses}, yLines * blocks);
  push.axis = 2, push.iteration = uint32_t(zLines);
  scheduler_.dispatchThreads({"clearance z (output)", envelopeKernel_.get(), {}, push, uses}, zLines * blocks);
}

// The propagation techniques: keys seeded, then the technique's iterations, then the output.
void GpuClearance::recordPropagation(gpu::ClearancePush push, const std::vector<BufferUse>& uses) {
  const uint64_t n = uint64_t(map_.regionSize());
  const uint64_t blocks = push.blocks;
  const uint64_t blockVoxels = (n + 2 * push.padX) * (n + 2 * push.padY) * (n + 2 * push.padZ);
  const bool roi = options_.technique == ClearanceTechnique::Roi;
  const bool openList = options_.technique == ClearanceTechnique::OpenList;
  push.axis = roi ? 1 : 0;  // the key grid: the region alone, or the padded block
  const uint64_t gridVoxels = roi ? n * n * n : blockVoxels;
  const char* name = clearanceTechniqueName(options_.technique);
  if (openList) {
    const uint32_t empty[gpu::kOpenListHeaderWords] = {0, 1, 1, 0, 0, 1, 1, 0};
    scheduler_.upload(lists_.range(0, sizeof empty), empty, sizeof empty);
    scheduler_.fill(other_.range(0, 4 * gridVoxels * blocks), 0);  // no voxel listed yet
    push.lists = lists_.address();
  }
  scheduler_.dispatchThreads({std::string("clearance ") + name + " seed", keySeedKernel_.get(), {}, push, uses},
                             gridVoxels * blocks);
  push.lists = 0;
  if (roi)  // one invocation per line along x of the block
    scheduler_.dispatchThreads({"clearance roi border seed", roiSeedKernel_.get(), {}, push, uses},
                               (n + 2 * push.padY) * (n + 2 * push.padZ) * blocks);
  const uint32_t steps = iterations();
  if (openList) {
    push.lists = lists_.address();
    for (uint32_t it = 0; it < steps; ++it) {
      push.iteration = it;
      scheduler_.dispatch({"clearance openlist reset", listResetKernel_.get(), {1, 1, 1}, push, uses});
      scheduler_.dispatchIndirect({"clearance openlist", openListKernel_.get(), {}, push, uses},
                                  lists_.range(uint64_t(it % 2) * 16, 12));
    }
  } else {
    // Steps stop changing keys long before the bound where obstacles are dense: each step
    // raises a flag when it changes one, and the next is sized from it on the GPU.
    const uint32_t groups = uint32_t((gridVoxels * blocks + 63) / 64);
    const uint32_t first[4] = {groups, 1, 1, 0};
    scheduler_.upload(steps_.range(0, sizeof first), first, sizeof first);
    push.lists = steps_.address();
    gpu::ClearancePush argsPush = push;
    argsPush.iteration = groups;
    for (uint32_t it = 0; it < steps; ++it) {
      scheduler_.dispatchIndirect({std::string("clearance ") + name + " step", propagateKernel_.get(), {}, push, uses},
                                  steps_.range(0, 12));
      scheduler_.dispatch({"clearance step size", stepArgsKernel_.get(), {1, 1, 1}, argsPush, uses});
      std::swap(push.field, push.other);  // ping-pong: this step's output is the next one's input
    }
    push.lists = 0;
  }
  scheduler_.dispatchThreads({"clearance output", keyOutputKernel_.get(), {}, push, uses}, n * n * n * blocks);
}

// One batch: the targets' slots uploaded, then the technique's passes over their blocks.
void GpuClearance::recordBatch(const std::vector<ClearanceTarget>& targets, const std::vector<RegionKey>& resident) {
  cache_->makeResident(resident, ++batchStamp_);
  std::vector<int32_t> entries;  // per block: key and slot, lo, hi (clearance_shared.h)
  for (const ClearanceTarget& t : targets)
    entries.insert(entries.end(), {t.key.x, t.key.y, t.key.z, int32_t(cache_->slotOf(t.key)), t.lo.x, t.lo.y, t.lo.z, 0,
                                   t.hi.x, t.hi.y, t.hi.z, 0});
  scheduler_.upload(targets_.range(0, entries.size() * 4), entries.data(), entries.size() * 4);
  std::vector<BufferUse> uses{reads(cache_->tableRange()), reads(cache_->layerTableRange()), reads(targets_.range()),
                              readsWrites(field_.range())};
  if (other_.size()) uses.push_back(readsWrites(other_.range()));
  if (lists_.size()) uses.push_back(readsWrites(lists_.range()));
  if (steps_.size()) uses.push_back(readsWrites(steps_.range()));
  if (metres_.size()) uses.push_back(reads(metres_.range()));
  for (const BufferRange& pool : cache_->poolRanges()) uses.push_back(readsWrites(pool));
  const gpu::ClearancePush push = batchPush(uint32_t(targets.size()));
  if (options_.technique == ClearanceTechnique::Exact) recordExact(push, targets, uses);
  else recordPropagation(push, uses);
  scheduler_.submit();
}

ClearanceStats GpuClearance::update() {
  prepareClearance(map_, options_);
  const std::vector<RegionKey> dirty = clearanceDirtyRegions(map_, options_);
  if (dirty.empty()) return {};
  return compute(dirty);
}

ClearanceStats GpuClearance::compute(std::span<const RegionKey> requested) {
  prepareClearance(map_, options_);
  const glm::ivec3 whole(map_.regionSize());
  std::vector<ClearanceTarget> targets;
  if (requested.empty()) {
    for (const auto& [key, region] : map_.regions()) targets.push_back({key, glm::ivec3(0), whole});
  } else {
    for (const RegionKey& key : requested)
      if (map_.findRegion(key)) targets.push_back({key, glm::ivec3(0), whole});
  }
  return run(std::move(targets));
}

ClearanceStats GpuClearance::computeParts(std::span<const ClearanceTarget> parts) {
  prepareClearance(map_, options_);
  const int n = map_.regionSize();
  const bool exactParts = clearanceComputesParts(map_.model(), options_);
  std::vector<ClearanceTarget> targets;
  for (const ClearanceTarget& t : parts) {
    const bool inside = glm::all(glm::greaterThanEqual(t.lo, glm::ivec3(0))) && glm::all(glm::lessThan(t.lo, t.hi)) &&
                        glm::all(glm::lessThanEqual(t.hi, glm::ivec3(n)));
    const bool whole = t.lo == glm::ivec3(0) && t.hi == glm::ivec3(n);
    if (!inside || (!whole && !exactParts))
      throw Error("clearance: a part of region (" + std::to_string(t.key.x) + "," + std::to_string(t.key.y) + "," +
                  std::to_string(t.key.z) + ") from (" + std::to_string(t.lo.x) + "," + std::to_string(t.lo.y) + "," +
                  std::to_string(t.lo.z) + ") to (" + std::to_string(t.hi.x) + "," + std::to_string(t.hi.y) + "," +
                  std::to_string(t.hi.z) + ") " +
                  (!inside ? "is not a non-empty box within the region's " + std::to_string(n) + " voxels per axis"
                           : std::string("needs the exact technique with one axis scale (parts are computed exactly only in "
                                         "integer voxel squares)")) +
                  " (internal error)");
    if (map_.findRegion(t.key)) targets.push_back(t);
  }
  if (targets.empty()) return {};
  return run(std::move(targets));
}

ClearanceStats GpuClearance::run(std::vector<ClearanceTarget> targets) {
  const auto start = std::chrono::steady_clock::now();
  // Neighbours in a batch share their neighbourhoods; a key asked twice is computed once, over
  // both parts' box.
  std::sort(targets.begin(), targets.end(), [](const ClearanceTarget& a, const ClearanceTarget& b) { return a.key < b.key; });
  std::vector<ClearanceTarget> merged;
  for (const ClearanceTarget& t : targets) {
    if (!merged.empty() && merged.back().key == t.key) {
      merged.back().lo = glm::min(merged.back().lo, t.lo);
      merged.back().hi = glm::max(merged.back().hi, t.hi);
    } else {
      merged.push_back(t);
    }
  }
  targets = std::move(merged);
  auto present = [&](const RegionKey& key) {
    std::vector<RegionKey> keys;
    for (const RegionKey& k : regionsWithinRange(key, map_.model(), options_))
      if (map_.findRegion(k)) keys.push_back(k);
    return keys;
  };
  // Up front, before any work: the cache must hold what one target needs (its neighbours
  // within range that the map has).
  size_t most = 0;
  for (const ClearanceTarget& t : targets) most = std::max(most, present(t.key).size());
  ensureCacheSlots(most);
  ClearanceStats stats;
  std::vector<ClearanceTarget> batch;
  std::set<RegionKey> resident;  // the batch's targets and their neighbours that the map has
  auto flush = [&] {
    if (batch.empty()) return;
    recordBatch(batch, std::vector<RegionKey>(resident.begin(), resident.end()));
    stats.regions += batch.size();
    ++stats.batches;
    batch.clear();
    resident.clear();
    if (gpuOptions_.progress) gpuOptions_.progress(stats.regions, targets.size());
  };
  for (const ClearanceTarget& target : targets) {
    std::vector<RegionKey> needed;
    for (const RegionKey& k : present(target.key))
      if (!resident.count(k)) needed.push_back(k);
    if (batch.size() + 1 > maxBlocks_ || resident.size() + needed.size() > cache_->slotCount()) {
      flush();
      needed = present(target.key);
    }
    batch.push_back(target);
    resident.insert(needed.begin(), needed.end());
  }
  flush();
  // Back to the host map, and nothing kept resident: the map may change before the next call
  // (more mapping), and the next call must read its occupancy anew.
  cache_->syncAndRelease();
  for (const ClearanceTarget& t : targets) map_.markDerived(*map_.findRegion(t.key), clearanceLayer());
  stats.cacheRegions = cache_->slotCount();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace voxen

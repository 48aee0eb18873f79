#include "voxen/query/gpu_queries.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "voxen/clearance/clearance.hpp"
#include "voxen/gpu/query/query_shared.h"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/primitives/stream_compaction.hpp"
#include "voxen/query/query_prep.hpp"

namespace voxen {

namespace {

// Items per round trip: bounds the scratch buffers (a few tens of MiB) while keeping
// submissions few.
constexpr size_t kItemsPerRound = size_t(1) << 21;
constexpr size_t kSegmentsPerRound = size_t(1) << 22;
constexpr uint64_t kBoxSlab = uint64_t(1) << 22;
constexpr uint32_t kUnobservedBits = 0x7f800000u;
constexpr uint32_t kNoClearanceBits = 0xbf800000u;  // -1.0f

// A scratch buffer that grows (doubling) and is reused across calls.
BufferRange scratch(Device& device, std::optional<Buffer>& buffer, const char* name, uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 16);
  if (!buffer || buffer->size() < bytes)
    buffer.emplace(device, name, std::max<uint64_t>(bytes, buffer ? buffer->size() * 2 : 0));
  return buffer->range(0, bytes);
}

}  // namespace

struct GpuQueries::Impl {
  Scheduler& scheduler;
  const OccupancyMap& map;
  QueryOptions options;
  std::optional<RegionCache> cache;
  std::vector<std::vector<RegionKey>> chunks;
  bool residentKept = false;  // one chunk, loaded and kept until refresh()
  uint64_t batch = 0;
  std::optional<Buffer> present;
  uint32_t presentMask = 0, presentProbe = 0;
  std::shared_ptr<Kernel> pointsKernel, clearanceKernel, raycastKernel, resolveKernel, boxKernel;
  StreamCompaction compaction;
  std::optional<Buffer> inputs, values, fractions, outputs, segments, hits, firstHit, answers, flags, indices, total;

  Impl(Scheduler& s, const OccupancyMap& m, QueryOptions o)
      : scheduler(s), map(m), options(o),
        pointsKernel(s.library().kernel("query/query_points.comp")),
        clearanceKernel(s.library().kernel("query/query_clearance.comp")),
        raycastKernel(s.library().kernel("query/query_raycast.comp")),
        resolveKernel(s.library().kernel("query/query_ray_resolve.comp")),
        boxKernel(s.library().kernel("query/query_box.comp")),
        compaction(s) {
    if (options.maxCrossingsPerSegment < 1 || options.maxCrossingsPerSegment > 16384)
      throw Error("QueryOptions::maxCrossingsPerSegment " + std::to_string(options.maxCrossingsPerSegment) +
                  " is outside 1 to 16384 (lavapipe stops a loop after 65,535 iterations)");
    plan();
  }

  // Splits the map's regions into chunks the cache holds and uploads the set of them.
  void plan() {
    std::vector<RegionKey> keys;
    keys.reserve(map.regions().size());
    for (const auto& [key, region] : map.regions()) keys.push_back(key);
    std::sort(keys.begin(), keys.end());
    const uint64_t perRegion = RegionCache::bytesPerRegion(map);
    const uint64_t wanted = std::max<uint64_t>(keys.size(), 1) * perRegion;
    cache.reset();
    cache.emplace(scheduler, map, std::min(options.cacheBytes, wanted));
    const size_t slots = cache->slotCount();
    chunks.clear();
    for (size_t i = 0; i < keys.size(); i += slots)
      chunks.emplace_back(keys.begin() + i, keys.begin() + std::min(keys.size(), i + slots));
    if (chunks.empty()) chunks.emplace_back();
    residentKept = false;

    uint32_t capacity = 16;
    while (capacity < 2 * keys.size()) capacity *= 2;
    std::vector<int32_t> entries(size_t(capacity) * 4, 0);
    for (uint32_t i = 0; i < capacity; ++i) entries[4 * i + 3] = -1;
    presentProbe = 0;
    presentMask = capacity - 1;
    for (const RegionKey& key : keys) {
      uint32_t i = gpuRegionHash(key) & presentMask, probe = 0;
      while (entries[4 * i + 3] >= 0) {
        i = (i + 1) & presentMask;
        ++probe;
      }
      entries[4 * i + 0] = key.x;
      entries[4 * i + 1] = key.y;
      entries[4 * i + 2] = key.z;
      entries[4 * i + 3] = 0;
      presentProbe = std::max(presentProbe, probe);
    }
    present.emplace(scheduler.device(), "query region set", uint64_t(capacity) * 16);
    scheduler.upload(present->range(), entries.data(), entries.size() * 4);
  }

  gpu::QueryMapPush mapPush(LayerId layer) const {
    gpu::QueryMapPush p{};
    p.layers = cache->layerTableAddress();
    p.table = cache->tableAddress();
    p.present = chunks.size() == 1 ? 0 : present->address();
    p.tableMask = cache->tableMask();
    p.tableProbe = cache->maxProbe();
    p.presentMask = presentMask;
    p.presentProbe = presentProbe;
    p.regionSize = map.regionSize();
    p.layer = layer;
    return p;
  }

  std::vector<BufferUse> mapUses() const {
    std::vector<BufferUse> uses{reads(cache->layerTableRange()), reads(cache->tableRange()), reads(present->range())};
    for (const BufferRange& pool : cache->poolRanges()) uses.push_back(reads(pool));
    return uses;
  }

  // Runs `record` once per chunk of regions with that chunk resident (the push constants
  // are built inside: the table's probe length changes with the chunk).
  template <class Record>
  void forEachChunk(Record&& record) {
    if (chunks.size() == 1) {
      if (!residentKept) cache->makeResident(chunks.front(), ++batch);
      residentKept = true;
      record();
      return;
    }
    for (const std::vector<RegionKey>& chunk : chunks) {
      cache->makeResident(chunk, ++batch);
      record();
    }
  }

  // Gathers 1 or 8 voxels' value bits per item of `voxels` into `values` (prefilled).
  void gather(const BufferRange& voxelRange, const BufferRange& valueRange, uint32_t count, uint32_t corners,
              LayerId layer) {
    forEachChunk([&] {
      gpu::QueryPointsPush push{};
      push.map = mapPush(layer);
      push.voxels = voxelRange.address;
      push.values = valueRange.address;
      push.count = count;
      push.corners = corners;
      std::vector<BufferUse> uses = mapUses();
      uses.push_back(reads(voxelRange));
      uses.push_back(readsWrites(valueRange));
      scheduler.dispatchThreads({"query gather", pointsKernel.get(), {}, push, std::move(uses)},
                                (uint64_t(count) + gpu::kQueryItemsPerInvocation - 1) / gpu::kQueryItemsPerInvocation);
    });
  }
};

GpuQueries::GpuQueries(Scheduler& scheduler, const OccupancyMap& map, QueryOptions options)
    : impl_(std::make_unique<Impl>(scheduler, map, options)) {}

GpuQueries::~GpuQueries() = default;

void GpuQueries::refresh() { impl_->plan(); }
size_t GpuQueries::regionsPerChunk() const { return impl_->cache->slotCount(); }
size_t GpuQueries::chunkCount() const { return impl_->chunks.size(); }

std::vector<OccupancyAnswer> GpuQueries::occupancy(std::span<const glm::dvec3> points) {
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  std::vector<OccupancyAnswer> answers(points.size());
  std::vector<gpu::ivec4> voxels;
  for (size_t first = 0; first < points.size(); first += kItemsPerRound) {
    const uint32_t count = uint32_t(std::min(kItemsPerRound, points.size() - first));
    voxels.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      const VoxelCoord v = queryPointVoxel(m.map.model(), points[first + i], first + i);
      voxels[i] = {v.x, v.y, v.z, 0};
    }
    const BufferRange in = scratch(device, m.inputs, "query voxels", uint64_t(count) * 16);
    const BufferRange out = scratch(device, m.values, "query values", uint64_t(count) * 4);
    m.scheduler.upload(in, voxels.data(), uint64_t(count) * 16);
    m.scheduler.fill(out, kUnobservedBits);
    m.gather(in, out, count, 1, kOccupancyLayer);
    const std::vector<float> values = m.scheduler.readback<float>(out).get();
    for (uint32_t i = 0; i < count; ++i) answers[first + i] = {values[i], m.map.classify(values[i])};
  }
  return answers;
}

std::vector<ClearanceSample> GpuQueries::clearance(std::span<const glm::dvec3> points) {
  Impl& m = *impl_;
  const LayerId layer = clearanceLayer();
  if (!m.map.layout().has(layer)) throw Error("the map has no clearance layer: compute clearance first");
  Device& device = m.scheduler.device();
  const float inverse = float(1.0 / m.map.model().resolution);
  std::vector<ClearanceSample> samples(points.size());
  std::vector<gpu::ivec4> voxels;
  std::vector<gpu::vec4> fractions;
  for (size_t first = 0; first < points.size(); first += kItemsPerRound) {
    const uint32_t count = uint32_t(std::min(kItemsPerRound, points.size() - first));
    voxels.resize(count);
    fractions.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      const ClearanceCell cell = clearanceCell(m.map.model(), points[first + i], first + i);
      voxels[i] = {cell.lower.x, cell.lower.y, cell.lower.z, 0};
      fractions[i] = {cell.fraction.x, cell.fraction.y, cell.fraction.z, 0.0f};
    }
    const BufferRange in = scratch(device, m.inputs, "query voxels", uint64_t(count) * 16);
    const BufferRange frac = scratch(device, m.fractions, "query fractions", uint64_t(count) * 16);
    const BufferRange corners = scratch(device, m.values, "query values", uint64_t(count) * 32);
    const BufferRange out = scratch(device, m.outputs, "query samples", uint64_t(count) * 16);
    m.scheduler.upload(in, voxels.data(), uint64_t(count) * 16);
    m.scheduler.upload(frac, fractions.data(), uint64_t(count) * 16);
    m.scheduler.fill(corners, kNoClearanceBits);
    m.gather(in, corners, count, 8, layer);
    gpu::QueryInterpolatePush push{corners.address, frac.address, out.address, count, inverse};
    m.scheduler.dispatchThreads(
        {"query clearance", m.clearanceKernel.get(), {}, push, {reads(corners), reads(frac), writes(out)}}, count);
    const std::vector<gpu::vec4> result = m.scheduler.readback<gpu::vec4>(out).get();
    for (uint32_t i = 0; i < count; ++i) {
      const gpu::vec4& r = result[i];
      samples[first + i] = {r.x, {r.y, r.z, r.w}};
    }
  }
  return samples;
}

std::vector<RayHit> GpuQueries::raycast(std::span<const QueryRay> rays, const RaycastOptions& options) {
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  std::vector<RayHit> hits(rays.size());
  std::vector<PreparedQueryRay> prepared;
  std::vector<gpu::GpuRay> gpuRays;
  std::vector<gpu::uvec2> segmentList;
  size_t first = 0;
  while (first < rays.size()) {
    prepared.clear();
    gpuRays.clear();
    segmentList.clear();
    // A round holds rays until either bound is reached (at least one ray).
    while (first + prepared.size() < rays.size() && prepared.size() < kItemsPerRound &&
           (prepared.empty() || segmentList.size() < kSegmentsPerRound)) {
      const size_t index = first + prepared.size();
      prepared.push_back(prepareQueryRay(m.map.model(), rays[index], index));
      const uint32_t segmentCount = voxen::segmentCount(prepared.back().walk, m.options.maxCrossingsPerSegment);
      const uint32_t ray = uint32_t(gpuRays.size());
      gpuRays.push_back(toGpuRay(prepared.back().walk, segmentCount, 0, uint32_t(segmentList.size())));
      for (uint32_t s = 0; s < segmentCount; ++s) segmentList.push_back({ray, s});
    }
    const uint32_t rayCount = uint32_t(prepared.size()), segmentTotal = uint32_t(segmentList.size());
    const BufferRange rayRange = scratch(device, m.inputs, "query rays", uint64_t(rayCount) * sizeof(gpu::GpuRay));
    const BufferRange segRange = scratch(device, m.segments, "query ray segments", uint64_t(segmentTotal) * 8);
    const BufferRange hitRange = scratch(device, m.hits, "query segment hits", uint64_t(segmentTotal) * 32);
    const BufferRange firstRange = scratch(device, m.firstHit, "query first hit", uint64_t(rayCount) * 4);
    const BufferRange answerRange = scratch(device, m.answers, "query ray answers", uint64_t(rayCount) * 32);
    m.scheduler.upload(rayRange, gpuRays.data(), uint64_t(rayCount) * sizeof(gpu::GpuRay));
    m.scheduler.upload(segRange, segmentList.data(), uint64_t(segmentTotal) * 8);
    m.scheduler.fill(hitRange, gpu::kQueryNoHit);
    m.scheduler.fill(firstRange, gpu::kQueryNoHit);
    gpu::QueryRaycastPush push{};
    push.rays = rayRange.address;
    push.segments = segRange.address;
    push.hits = hitRange.address;
    push.firstHit = firstRange.address;
    push.answers = answerRange.address;
    push.unknownBlocks = options.unknownBlocks ? 1u : 0u;
    push.threshold = m.map.model().thresholdValue();
    m.forEachChunk([&] {
      push.map = m.mapPush(kOccupancyLayer);
      push.count = segmentTotal;
      std::vector<BufferUse> uses = m.mapUses();
      uses.push_back(reads(rayRange));
      uses.push_back(reads(segRange));
      uses.push_back(readsWrites(hitRange));
      uses.push_back(readsWrites(firstRange));
      m.scheduler.dispatchThreads({"query raycast", m.raycastKernel.get(), {}, push, std::move(uses)}, segmentTotal);
    });
    push.count = rayCount;
    m.scheduler.dispatchThreads({"query ray resolve",
                                 m.resolveKernel.get(),
                                 {},
                                 push,
                                 {reads(rayRange), reads(hitRange), reads(firstRange), writes(answerRange)}},
                                rayCount);
    const std::vector<gpu::QueryHit> result = m.scheduler.readback<gpu::QueryHit>(answerRange).get();
    for (uint32_t i = 0; i < rayCount; ++i) {
      const gpu::QueryHit& h = result[i];
      if (h.ordinal == gpu::kQueryNoHit) continue;
      float t, value;
      std::memcpy(&t, &h.tEnterBits, 4);
      std::memcpy(&value, &h.valueBits, 4);
      hits[first + i] = finishRayHit(m.map, prepared[i], {h.voxel.x, h.voxel.y, h.voxel.z}, t, value);
    }
    first += rayCount;
  }
  return hits;
}

BoxVoxels GpuQueries::voxelsInBox(const QueryBox& box, VoxelClass voxelClass) {
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  const BoxRange range = boxRange(m.map.model(), box, m.options.maxBoxVoxels);
  BoxVoxels out;
  const uint64_t total = range.voxels();
  for (uint64_t first = 0; first < total; first += kBoxSlab) {
    const uint32_t count = uint32_t(std::min(kBoxSlab, total - first));
    const BufferRange flagRange = scratch(device, m.flags, "query box flags", uint64_t(count) * 4);
    const BufferRange indexRange = scratch(device, m.indices, "query box indices", uint64_t(count) * 4);
    const BufferRange totalRange = scratch(device, m.total, "query box count", 4);
    m.scheduler.fill(flagRange, 0u);
    m.forEachChunk([&] {
      gpu::QueryBoxPush push{};
      push.map = m.mapPush(kOccupancyLayer);
      push.flags = flagRange.address;
      push.lowerX = range.lower.x;
      push.lowerY = range.lower.y;
      push.lowerZ = range.lower.z;
      push.dimX = uint32_t(range.dims[0]);
      push.dimY = uint32_t(range.dims[1]);
      push.first = uint32_t(first);
      push.count = count;
      push.voxelClass = uint32_t(voxelClass);
      push.threshold = m.map.model().thresholdValue();
      std::vector<BufferUse> uses = m.mapUses();
      uses.push_back(readsWrites(flagRange));
      m.scheduler.dispatchThreads({"query box", m.boxKernel.get(), {}, push, std::move(uses)}, count);
    });
    m.compaction.record(flagRange, indexRange, count, totalRange);
    const uint32_t kept = m.scheduler.readback<uint32_t>(totalRange).get().at(0);
    if (kept == 0) continue;
    const std::vector<uint32_t> listed = m.scheduler.readback<uint32_t>(indexRange.first(uint64_t(kept) * 4)).get();
    const uint64_t plane = range.dims[0] * range.dims[1];
    for (uint32_t index : listed) {
      const uint64_t linear = first + index;
      const uint64_t z = linear / plane, rest = linear % plane;
      out.voxels.push_back({range.lower.x + int32_t(rest % range.dims[0]), range.lower.y + int32_t(rest / range.dims[0]),
                            range.lower.z + int32_t(z)});
    }
  }
  out.count = out.voxels.size();
  return out;
}

}  // namespace voxen

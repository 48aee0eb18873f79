#include "voxen/query/gpu_queries.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/gpu/query/query_shared.h"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/host/worker_crew.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/primitives/stream_compaction.hpp"
#include "voxen/query/query_map_access.hpp"
#include "voxen/query/query_prep.hpp"

namespace voxen {

namespace {

// Items per round trip: bounds the scratch buffers (a few tens of MiB) while keeping
// submissions few.
constexpr size_t kItemsPerRound = size_t(1) << 20;
constexpr size_t kSegmentsPerRound = size_t(1) << 22;
// Rays a preparing thread takes at least (fewer rays are prepared on fewer threads).
constexpr size_t kRaysPerPart = 4096;
constexpr uint64_t kBoxSlab = uint64_t(1) << 22;

// The GPU writes occupancy answers and clearance samples in the host's layout, so that they
// are read back straight into the caller's span.
static_assert(sizeof(OccupancyAnswer) == 12 && offsetof(OccupancyAnswer, voxelClass) == 4 &&
                  offsetof(OccupancyAnswer, status) == 8 && sizeof(VoxelClass) == 4 && sizeof(QueryStatus) == 1 &&
                  int(VoxelClass::Unobserved) == 0 && int(VoxelClass::Free) == 1 && int(VoxelClass::Occupied) == 2,
              "query_classify.comp writes OccupancyAnswer as (float bits, uint class, uint status)");
static_assert(sizeof(ClearanceSample) == 20 && offsetof(ClearanceSample, gradient) == 4 && sizeof(glm::vec3) == 12 &&
                  offsetof(ClearanceSample, status) == 16,
              "query_clearance.comp writes ClearanceSample as 5 words (clearance, gradient, status)");
static_assert(int(QueryStatus::Observed) == int(gpu::kQueryStatusObserved) &&
                  int(QueryStatus::Unobserved) == int(gpu::kQueryStatusUnobserved) &&
                  int(QueryStatus::OutOfRange) == int(gpu::kQueryStatusOutOfRange) &&
                  int(QueryStatus::OutsideMap) == int(gpu::kQueryStatusOutsideMap),
              "the shaders write QueryStatus by its values");
static_assert(std::endian::native == std::endian::little, "a status word's low byte is QueryStatus");

// Refuses a caller's span with room for fewer answers than the items asked.
void checkRoom(const char* query, const char* items, size_t asked, size_t room) {
  if (room < asked)
    throw QueryOutputError(std::string("GpuQueries::") + query + ": " + std::to_string(asked) + " " + items +
                           " but the answer span holds " + std::to_string(room) + " (it needs one element per item)");
}

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
  std::vector<RegionKey> keys;  // every region of the map, sorted
  RegionKey gridLo;
  uint64_t gridDims[3] = {0, 0, 0};  // all 0: the lookup is a hash table
  std::optional<Buffer> lookup;
  uint32_t hashMask = 0, hashProbe = 0;
  size_t lookupChunk = SIZE_MAX;  // the chunk the lookup describes
  std::shared_ptr<Kernel> pointsKernel, classifyKernel, clearanceKernel, raycastKernel, resolveKernel, boxKernel;
  StreamCompaction compaction;
  std::optional<Buffer> inputs, values, fractions, outputs, segments, hits, firstHit, answers, flags, indices, total;
  // Host memory kept between rounds and calls (a fresh vector per call costs its page faults
  // again): a round's inputs as uploaded, its rays as the host finishes their hits, and the
  // rays' hits as read back (occupancy and clearance answers go straight to the caller).
  std::vector<gpu::ivec4> voxelsUp;
  std::vector<gpu::vec4> fractionsUp;
  std::vector<QueryRayMetres> metres;
  std::vector<gpu::GpuRay> gpuRays;
  std::vector<gpu::uvec2> segmentList;
  std::vector<uint32_t> segmentCounts;
  std::vector<gpu::QueryHit> hitsRead;
  // Threads that prepare a round's rays (the calling thread and up to 7 more, kept between calls).
  const unsigned crewThreads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  WorkerCrew crew{crewThreads - 1, "query ray preparing"};

  Impl(Scheduler& s, const OccupancyMap& m, QueryOptions o)
      : scheduler(s), map(m), options(o),
        pointsKernel(s.library().kernel("query/query_points.comp")),
        classifyKernel(s.library().kernel("query/query_classify.comp")),
        clearanceKernel(s.library().kernel("query/query_clearance.comp")),
        raycastKernel(s.library().kernel("query/query_raycast.comp")),
        resolveKernel(s.library().kernel("query/query_ray_resolve.comp")),
        boxKernel(s.library().kernel("query/query_box.comp")),
        compaction(s) {
    if (options.maxCrossingsPerSegment < 1 || options.maxCrossingsPerSegment > 8192)
      throw Error("QueryOptions::maxCrossingsPerSegment " + std::to_string(options.maxCrossingsPerSegment) +
                  " is outside 1 to 8192 (lavapipe stops a loop after 65,535 iterations)");
    plan();
  }

  // Splits the map's regions into chunks the cache holds, and chooses the lookup: a dense
  // grid over the box of the regions when it has at most kQueryMaxGridCells cells.
  void plan() {
    keys.clear();
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
    lookupChunk = SIZE_MAX;
    RegionKey lo{0, 0, 0}, hi{0, 0, 0};
    for (size_t i = 0; i < keys.size(); ++i) {
      const RegionKey& k = keys[i];
      lo = i ? RegionKey{std::min(lo.x, k.x), std::min(lo.y, k.y), std::min(lo.z, k.z)} : k;
      hi = i ? RegionKey{std::max(hi.x, k.x), std::max(hi.y, k.y), std::max(hi.z, k.z)} : k;
    }
    gridLo = lo;
    const uint64_t dims[3] = {uint64_t(int64_t(hi.x) - lo.x + 1), uint64_t(int64_t(hi.y) - lo.y + 1),
                              uint64_t(int64_t(hi.z) - lo.z + 1)};
    const bool grid = !keys.empty() && dims[0] * dims[1] <= gpu::kQueryMaxGridCells &&
                      dims[0] * dims[1] * dims[2] <= gpu::kQueryMaxGridCells;
    for (int a = 0; a < 3; ++a) gridDims[a] = grid ? dims[a] : 0;
  }

  // The lookup for chunk `c` (resident now): each region's slot, kQueryElsewhere for the
  // map's other regions.
  void buildLookup(size_t c) {
    if (lookupChunk == c) return;
    std::vector<int32_t> words;
    auto valueOf = [&](const RegionKey& key, bool resident) { return resident ? int32_t(cache->slotOf(key)) : gpu::kQueryElsewhere; };
    if (gridDims[0] != 0) {
      words.assign(gridDims[0] * gridDims[1] * gridDims[2], -1);
      auto cell = [&](const RegionKey& k) {
        return uint64_t(k.x - gridLo.x) + gridDims[0] * (uint64_t(k.y - gridLo.y) + gridDims[1] * uint64_t(k.z - gridLo.z));
      };
      for (const RegionKey& key : keys) words[cell(key)] = gpu::kQueryElsewhere;
      for (const RegionKey& key : chunks[c]) words[cell(key)] = valueOf(key, true);
    } else {
      uint32_t capacity = 16;
      while (capacity < 2 * keys.size()) capacity *= 2;
      words.assign(size_t(capacity) * 4, 0);
      for (uint32_t i = 0; i < capacity; ++i) words[4 * i + 3] = -1;
      hashMask = capacity - 1;
      hashProbe = 0;
      std::vector<RegionKey> resident = chunks[c];  // sorted, as keys are
      for (const RegionKey& key : keys) {
        uint32_t i = gpuRegionHash(key) & hashMask, probe = 0;
        while (words[4 * i + 3] != -1) {
          i = (i + 1) & hashMask;
          ++probe;
        }
        words[4 * i + 0] = key.x;
        words[4 * i + 1] = key.y;
        words[4 * i + 2] = key.z;
        words[4 * i + 3] = valueOf(key, std::binary_search(resident.begin(), resident.end(), key));
        hashProbe = std::max(hashProbe, probe);
      }
    }
    if (words.empty()) words.assign(4, -1);
    const uint64_t bytes = words.size() * 4;
    if (!lookup || lookup->size() < bytes) lookup.emplace(scheduler.device(), "query region lookup", std::max<uint64_t>(bytes, 16));
    scheduler.upload(lookup->range(0, bytes), words.data(), bytes);
    lookupChunk = c;
  }

  gpu::QueryMapPush mapPush(LayerId layer) const {
    gpu::QueryMapPush p{};
    p.layers = cache->layerTableAddress();
    p.lookup = lookup->address();
    p.gridLoX = gridLo.x;
    p.gridLoY = gridLo.y;
    p.gridLoZ = gridLo.z;
    p.gridDimX = uint32_t(gridDims[0]);
    p.gridDimY = uint32_t(gridDims[1]);
    p.gridDimZ = uint32_t(gridDims[2]);
    p.hashMask = hashMask;
    p.hashProbe = hashProbe;
    p.regionSize = map.regionSize();
    p.layer = layer.index();
    return p;
  }

  std::vector<BufferUse> mapUses() const {
    std::vector<BufferUse> uses{reads(cache->layerTableRange()), reads(lookup->range())};
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
      buildLookup(0);
      record();
      return;
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      cache->makeResident(chunks[c], ++batch);
      buildLookup(c);
      record();
    }
  }

  void report(uint64_t done, uint64_t total) const {
    if (options.progress) options.progress(done, total);
  }

  // Rounds of kItemsPerRound items: recordRound(first, count) prepares a round, records its
  // passes and the readback of its answers into the caller's memory, and returns the ticket.
  // A round's readback is waited for after the next round is submitted, so the host prepares
  // that round while the GPU answers this one.
  template <class RecordRound>
  void inRounds(size_t items, const RecordRound& recordRound) {
    ReadbackTicket previous;
    size_t previousDone = 0;
    for (size_t first = 0; first < items; first += kItemsPerRound) {
      const uint32_t count = uint32_t(std::min(kItemsPerRound, items - first));
      ReadbackTicket ticket = recordRound(first, count);
      scheduler.submit();
      if (previous.valid()) {
        previous.wait();
        report(previousDone, items);
      }
      previous = std::move(ticket);
      previousDone = first + count;
    }
    if (previous.valid()) {
      previous.wait();
      report(previousDone, items);
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

QueryMapAccess GpuQueries::mapAccess() {
  Impl& m = *impl_;
  return {m.scheduler, m.map, [&m](LayerId layer, const std::function<void(const QueryMapPass&)>& record) {
            m.forEachChunk([&] { record(QueryMapPass{m.mapPush(layer), m.mapUses()}); });
          }};
}

std::vector<OccupancyAnswer> GpuQueries::occupancy(std::span<const glm::dvec3> points) {
  std::vector<OccupancyAnswer> answers(points.size());
  occupancy(points, answers);
  return answers;
}

// In rounds (Impl::inRounds): the host turns each point into its voxel (on the decimals as
// written, queryPointVoxel), the GPU gathers and classifies, and the answers are read back
// into the caller's span.
// One round of occupancy answers (items first .. first + count) recorded into `out`.
void GpuQueries::recordOccupancyRound(std::span<const glm::dvec3> points, size_t first, uint32_t count, const BufferRange& out) {
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  m.voxelsUp.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const VoxelCoord v = queryPointVoxel(m.map.model(), points[first + i], first + i);
    m.voxelsUp[i] = {v.x, v.y, v.z, 0};
  }
  const BufferRange in = scratch(device, m.inputs, "query voxels", uint64_t(count) * 16);
  const BufferRange values = scratch(device, m.values, "query values", uint64_t(count) * 4);
  m.scheduler.upload(in, m.voxelsUp.data(), uint64_t(count) * 16);
  m.scheduler.fill(values, gpu::kQueryOutsideMapBits);  // left where the map has no region
  m.gather(in, values, count, 1, kOccupancyLayer);
  const gpu::QueryClassifyPush push{values.address, out.address, count, m.map.model().thresholdValue()};
  m.scheduler.dispatchThreads({"query classify", m.classifyKernel.get(), {}, push, {reads(values), writes(out)}}, count);
}

void GpuQueries::occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers) {
  checkRoom("occupancy", "points", points.size(), answers.size());
  Impl& m = *impl_;
  m.inRounds(points.size(), [&](size_t first, uint32_t count) {
    // scratch() rounds a range up to 16 bytes: one answer is 12.
    const BufferRange out = scratch(m.scheduler.device(), m.outputs, "query answers", uint64_t(count) * sizeof(OccupancyAnswer))
                                .first(uint64_t(count) * sizeof(OccupancyAnswer));
    recordOccupancyRound(points, first, count, out);
    return m.scheduler.readbackInto(out, answers.subspan(first, count));
  });
}

namespace {

// Items first .. first + count of a caller's device range of `bytesPerItem` answers.
BufferRange itemsOf(const BufferRange& range, size_t first, uint32_t count, uint64_t bytesPerItem) {
  const uint64_t offset = uint64_t(first) * bytesPerItem;
  return {range.buffer, range.offset + offset, uint64_t(count) * bytesPerItem, range.address + offset, range.name};
}

// Refuses a caller's device range too small (or without a device address) before any work.
void checkDeviceRoom(const char* query, size_t items, const BufferRange& range, uint64_t bytesPerItem) {
  if (items > 0 && (range.buffer == VK_NULL_HANDLE || range.address == 0))
    throw QueryOutputError(std::string("GpuQueries::") + query + ": the answer buffer range has no buffer or device address");
  if (range.size < uint64_t(items) * bytesPerItem)
    throw QueryOutputError(std::string("GpuQueries::") + query + ": " + std::to_string(items) + " items need " +
                           std::to_string(uint64_t(items) * bytesPerItem) + " bytes but the answer buffer range '" +
                           range.name + "' holds " + std::to_string(range.size));
}

}  // namespace

void GpuQueries::occupancy(std::span<const glm::dvec3> points, const BufferRange& answers) {
  checkDeviceRoom("occupancy", points.size(), answers, sizeof(OccupancyAnswer));
  Impl& m = *impl_;
  m.inRounds(points.size(), [&](size_t first, uint32_t count) {
    recordOccupancyRound(points, first, count, itemsOf(answers, first, count, sizeof(OccupancyAnswer)));
    return ReadbackTicket{};  // nothing to read back: the answers stay on the device
  });
}

std::vector<ClearanceSample> GpuQueries::clearance(std::span<const glm::dvec3> points) {
  std::vector<ClearanceSample> samples(points.size());
  clearance(points, samples);
  return samples;
}

// As occupancy(): the host finds each point's cell, the GPU gathers its 8 corners and
// interpolates, and the samples are read back into the caller's span.
// One round of clearance samples (items first .. first + count) recorded into `out`.
void GpuQueries::recordClearanceRound(std::span<const glm::dvec3> points, size_t first, uint32_t count, const BufferRange& out) {
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  const float inverse = float(1.0 / m.map.model().resolution);
  m.voxelsUp.resize(count);
  m.fractionsUp.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const ClearanceCell cell = clearanceCell(m.map.model(), points[first + i], first + i);
    m.voxelsUp[i] = {cell.lower.x, cell.lower.y, cell.lower.z, 0};
    m.fractionsUp[i] = {cell.fraction.x, cell.fraction.y, cell.fraction.z, 0.0f};
  }
  const BufferRange in = scratch(device, m.inputs, "query voxels", uint64_t(count) * 16);
  const BufferRange frac = scratch(device, m.fractions, "query fractions", uint64_t(count) * 16);
  const BufferRange corners = scratch(device, m.values, "query values", uint64_t(count) * 32);
  m.scheduler.upload(in, m.voxelsUp.data(), uint64_t(count) * 16);
  m.scheduler.upload(frac, m.fractionsUp.data(), uint64_t(count) * 16);
  m.scheduler.fill(corners, std::bit_cast<uint32_t>(gpu::kQueryOutsideMapClearance));  // left where the map has no region
  m.gather(in, corners, count, 8, clearanceLayer());
  gpu::QueryInterpolatePush push{corners.address, frac.address, out.address, count, inverse};
  m.scheduler.dispatchThreads(
      {"query clearance", m.clearanceKernel.get(), {}, push, {reads(corners), reads(frac), writes(out)}}, count);
}

void GpuQueries::clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples) {
  Impl& m = *impl_;
  if (!m.map.layout().has(clearanceLayer())) throw Error("the map has no clearance layer: compute clearance first");
  checkRoom("clearance", "points", points.size(), samples.size());
  m.inRounds(points.size(), [&](size_t first, uint32_t count) {
    const BufferRange out = scratch(m.scheduler.device(), m.outputs, "query samples", uint64_t(count) * sizeof(ClearanceSample))
                                .first(uint64_t(count) * sizeof(ClearanceSample));
    recordClearanceRound(points, first, count, out);
    return m.scheduler.readbackInto(out, samples.subspan(first, count));
  });
}

void GpuQueries::clearance(std::span<const glm::dvec3> points, const BufferRange& samples) {
  Impl& m = *impl_;
  if (!m.map.layout().has(clearanceLayer())) throw Error("the map has no clearance layer: compute clearance first");
  checkDeviceRoom("clearance", points.size(), samples, sizeof(ClearanceSample));
  m.inRounds(points.size(), [&](size_t first, uint32_t count) {
    recordClearanceRound(points, first, count, itemsOf(samples, first, count, sizeof(ClearanceSample)));
    return ReadbackTicket{};  // nothing to read back: the samples stay on the device
  });
}

std::vector<RayHit> GpuQueries::raycast(std::span<const QueryRay> rays, const RaycastOptions& options) {
  std::vector<RayHit> hits(rays.size());
  raycast(rays, hits, options);
  return hits;
}

void GpuQueries::raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options) {
  checkRoom("raycast", "rays", rays.size(), hits.size());
  Impl& m = *impl_;
  Device& device = m.scheduler.device();
  std::vector<QueryRayMetres>& metres = m.metres;
  std::vector<gpu::GpuRay>& gpuRays = m.gpuRays;
  std::vector<gpu::uvec2>& segmentList = m.segmentList;
  std::vector<uint32_t>& segmentCounts = m.segmentCounts;
  size_t first = 0;
  while (first < rays.size()) {
    // A round's candidates prepared on the crew's threads, a contiguous part each: a ray's
    // metres, record and segment count. A ray that cannot be prepared ends its part; its error
    // is thrown when the round reaches it, as preparing in order would.
    const size_t candidates = std::min(kItemsPerRound, rays.size() - first);
    metres.resize(candidates);
    gpuRays.resize(candidates);
    segmentCounts.resize(candidates);
    const unsigned parts = unsigned(std::min<size_t>(m.crewThreads, (candidates + kRaysPerPart - 1) / kRaysPerPart));
    std::vector<size_t> failedAt(parts, SIZE_MAX);
    std::vector<std::exception_ptr> errors(parts);
    const auto partBegin = [&](unsigned p) { return candidates * p / parts; };
    m.crew.run(parts, [&](unsigned p) {
      for (size_t i = partBegin(p); i < partBegin(p + 1); ++i) {
        try {
          const PreparedQueryRay prepared = prepareQueryRay(m.map.model(), rays[first + i], first + i);
          metres[i] = prepared.metres;
          segmentCounts[i] = voxen::segmentCount(prepared.walk, m.options.maxCrossingsPerSegment);
          gpuRays[i] = toGpuRay(prepared.walk, segmentCounts[i], 0, 0);
        } catch (...) {
          failedAt[p] = i;
          errors[p] = std::current_exception();
          return;
        }
      }
    });
    const auto firstFailure = std::min_element(failedAt.begin(), failedAt.end());
    const size_t failed = firstFailure == failedAt.end() ? SIZE_MAX : *firstFailure;
    // The round holds rays while the segments before them are under the bound (at least one
    // ray), each ray's segments after the ones before it.
    uint32_t rayCount = 0;
    uint64_t segmentSum = 0;
    while (rayCount < candidates && rayCount != failed && (rayCount == 0 || segmentSum < kSegmentsPerRound)) {
      gpuRays[rayCount].segmentBase = uint32_t(segmentSum);
      segmentSum += segmentCounts[rayCount++];
    }
    if (rayCount == failed && (rayCount == 0 || segmentSum < kSegmentsPerRound))
      std::rethrow_exception(errors[size_t(firstFailure - failedAt.begin())]);
    segmentList.resize(segmentSum);
    m.crew.run(parts, [&](unsigned p) {
      for (size_t i = partBegin(p); i < std::min<size_t>(partBegin(p + 1), rayCount); ++i)
        for (uint32_t k = 0; k < segmentCounts[i]; ++k) segmentList[gpuRays[i].segmentBase + k] = {uint32_t(i), k};
    });
    const uint32_t segmentTotal = uint32_t(segmentSum);
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
    m.hitsRead.resize(rayCount);
    m.scheduler.readbackInto(answerRange, std::span<gpu::QueryHit>(m.hitsRead)).wait();
    for (uint32_t i = 0; i < rayCount; ++i) {
      const gpu::QueryHit& h = m.hitsRead[i];
      if (h.ordinal == gpu::kQueryNoHit) {
        hits[first + i] = missedRay(m.map, rays[first + i], first + i);
        continue;
      }
      float t, value;
      std::memcpy(&t, &h.tEnterBits, 4);
      std::memcpy(&value, &h.valueBits, 4);
      hits[first + i] = finishRayHit(m.map, metres[i], {h.voxel.x, h.voxel.y, h.voxel.z}, t, value);
    }
    first += rayCount;
    m.report(first, rays.size());
  }
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

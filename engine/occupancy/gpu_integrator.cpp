#include "voxen/engine/occupancy/gpu_integrator.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <unordered_set>

#include "voxen/engine/occupancy/ray_walk.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace voxen {

namespace {

// Mirrors struct GpuRay in shaders/occupancy/gpu_ray.glsl (std430, 80 bytes).
struct GpuRay {
  float o[3];
  float time;
  float d[3];
  uint32_t meanPacked;
  int32_t start[3];
  uint32_t flags;
  int32_t end[3];
  uint32_t segments;
  uint32_t slotBase;     // first entry of the ray's region slots
  uint32_t regionCount;  // regions on its walk
  uint32_t unused[2];
};
static_assert(sizeof(GpuRay) == 80);

// Mirrors the push constants of shaders/occupancy/map_access.glsl.
struct OccupancyPush {
  uint64_t rays, segments, occupancy, table, counters, stop, mean, traversal, hitMiss, touch, raySlots;
  uint32_t itemCount, tableMask, maxProbe;
  int32_t regionSize;
  float hitValue, missValue, clampMin, clampMax, threshold;
  uint32_t flags;
};
static_assert(sizeof(OccupancyPush) == 128);

constexpr uint32_t kPassReverse = 256, kPassStopOnOccupied = 512;
constexpr uint32_t kInfinityBits = 0x7f800000u;

}  // namespace

struct GpuIntegrator::Batch {
  std::vector<GpuRay> rays;
  std::vector<uint32_t> segments;  // (ray, segment) pairs
  std::vector<RegionKey> keys;
  std::unordered_set<RegionKey, RegionKeyHash> keySet;
  std::vector<RegionKey> rayRegions;  // every ray's regions in walk order, back to back
  std::vector<uint32_t> slots;        // their cache slots, filled when the batch is flushed
  // Neighbouring rays cross the same regions: a small direct-mapped cache of keys known to
  // be in keySet spares most hash-set lookups.
  std::array<RegionKey, 64> recent{};
  std::array<bool, 64> recentValid{};
  // Empties the batch but keeps its memory: reallocating per batch costs page faults.
  void clear() {
    rays.clear();
    segments.clear();
    keys.clear();
    keySet.clear();
    rayRegions.clear();
    recentValid.fill(false);
  }
  bool contains(const RegionKey& key) {
    const uint32_t slot = gpuRegionHash(key) & 63u;
    if (recentValid[slot] && recent[slot] == key) return true;
    if (!keySet.count(key)) return false;
    recent[slot] = key;
    recentValid[slot] = true;
    return true;
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
      batch_(std::make_unique<Batch>()) {
  if (gpuOptions_.maxRaysPerBatch == 0) throw Error("batch size must be at least 1 ray");
  if (gpuOptions_.maxCrossingsPerSegment < 8 || gpuOptions_.maxCrossingsPerSegment > 4096)
    throw Error("segment length must be between 8 and 4096 crossings");
  selectKernels(passFlags());
  stop_ = Buffer(scheduler.device(), "occupancy stop points", uint64_t(gpuOptions_.maxRaysPerBatch) * 4);
  counters_ = Buffer(scheduler.device(), "occupancy counters", 4 * 8);
  scheduler.fill(counters_, 0);
}

GpuIntegrator::~GpuIntegrator() {
  // What was accepted must reach the map even when the caller forgot finish(); during
  // stack unwinding the map may be gone, so only then is it left alone.
  if (std::uncaught_exceptions() == 0 && (!batch_->rays.empty() || stats_.batches > synced_)) {
    try {
      finish();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "voxen: GpuIntegrator could not copy its regions back: %s\n", e.what());
    }
  }
}

void GpuIntegrator::integrate(std::span<const Ray> rays) {
  if (rays.empty()) return;
  if (!timeOriginSet_ && map_.regions().empty()) map_.setTimeOrigin(rays.front().time);
  timeOriginSet_ = true;
  for (const Ray& ray : rays) addRay(ray);
}

uint32_t GpuIntegrator::passFlags() const {
  uint32_t flags = map_.layers();
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
  hitKernel_ = library.kernel("occupancy/integrate_hit.comp", variant);
}

void GpuIntegrator::addRay(const Ray& ray) {
  bool clipped = false;
  const PreparedRay r = prepareRay(ray, map_.model(), options_, map_.timeOrigin(), &clipped);
  stats_.clippedRays += clipped;
  ++stats_.rays;
  regionsOnRay(r, map_.regionSize(), rayKeys_);
  const std::vector<RegionKey>& keys = rayKeys_;
  if (keys.size() > cache_.slotCount())
    throw Error("a ray crosses " + std::to_string(keys.size()) + " regions but the GPU cache holds only " +
                std::to_string(cache_.slotCount()) + ": raise --gpu-cache-mb or set --max-range");
  size_t added = 0;
  for (const RegionKey& key : keys) added += !batch_->contains(key);
  const uint32_t segments = segmentCount(r, gpuOptions_.maxCrossingsPerSegment);
  // Batches end on the ray count or the cache's capacity only (the segment buffer grows),
  // so the CPU reference fed the same batches builds the same map.
  if (batch_->keySet.size() + added > cache_.slotCount()) flush();

  const uint32_t index = uint32_t(batch_->rays.size());
  GpuRay g{};
  for (int a = 0; a < 3; ++a) {
    g.o[a] = r.o[a];
    g.d[a] = r.d[a];
  }
  g.time = r.time;
  g.meanPacked = r.meanPacked;
  g.start[0] = r.start.x, g.start[1] = r.start.y, g.start[2] = r.start.z;
  g.end[0] = r.end.x, g.end[1] = r.end.y, g.end[2] = r.end.z;
  g.flags = r.flags;
  g.segments = segments;
  g.slotBase = uint32_t(batch_->rayRegions.size());
  g.regionCount = uint32_t(keys.size());
  batch_->rays.push_back(g);
  batch_->rayRegions.insert(batch_->rayRegions.end(), keys.begin(), keys.end());
  for (uint32_t s = 0; s < segments; ++s) {
    batch_->segments.push_back(index);
    batch_->segments.push_back(s);
  }
  for (const RegionKey& key : keys)
    if (batch_->keySet.insert(key).second) batch_->keys.push_back(key);
  if (batch_->rays.size() >= gpuOptions_.maxRaysPerBatch) flush();
}

void GpuIntegrator::flush() {
  Batch& b = *batch_;
  if (b.rays.empty()) return;
  cache_.makeResident(b.keys, ++batchStamp_);
  const uint32_t rayCount = uint32_t(b.rays.size());
  const uint32_t segmentCount = uint32_t(b.segments.size() / 2);
  const BufferRange rays = rays_.write(b.rays.data(), rayCount * sizeof(GpuRay));
  // Segments stay in input order: sensor data arrives in scan order, whose neighbouring
  // rays already walk similar lengths through nearby voxels. (Sorting by sample cell was
  // measured: it helps shuffled clouds on lavapipe but costs more than it saves on scans.)
  const BufferRange segments = segments_.write(b.segments.data(), segmentCount * 8ull);
  std::vector<uint32_t>& slots = b.slots;
  slots.resize(b.rayRegions.size());
  for (size_t i = 0; i < slots.size(); ++i) slots[i] = cache_.slotOf(b.rayRegions[i]);
  const BufferRange raySlots = raySlots_.write(slots.data(), slots.size() * 4);

  const OccupancyModel& model = map_.model();
  OccupancyPush push{};
  push.rays = rays.address;
  push.segments = segments.address;
  push.occupancy = cache_.occupancyAddress();
  push.table = cache_.tableAddress();
  push.counters = counters_.address();
  push.stop = stop_.address();
  push.mean = cache_.meanAddress();
  push.traversal = cache_.traversalAddress();
  push.hitMiss = cache_.hitMissAddress();
  push.touch = cache_.touchAddress();
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
                              readsWrites(counters_), readsWrites(stop_)};
  for (const BufferRange& pool : cache_.poolRanges()) uses.push_back(readsWrites(pool));
  if (stopSearch) {
    scheduler_.fill(stop_.range(0, rayCount * 4ull), kInfinityBits);
    push.itemCount = segmentCount;
    scheduler_.dispatchThreads({"occupancy stop search", stopKernel_.get(), {}, push, uses}, segmentCount);
  }
  push.itemCount = segmentCount;
  scheduler_.dispatchThreads({"occupancy miss pass", missKernel_.get(), {}, push, uses}, segmentCount);
  push.itemCount = rayCount;
  scheduler_.dispatchThreads({"occupancy hit pass", hitKernel_.get(), {}, push, uses}, rayCount);
  const uint64_t submitted = scheduler_.submit();  // the GPU starts while the host prepares the next batch
  rays_.submitted(submitted);
  segments_.submitted(submitted);
  raySlots_.submitted(submitted);
  ++stats_.batches;
  batch_->clear();
}

void GpuIntegrator::finish() {
  flush();
  cache_.syncToMap();
  synced_ = stats_.batches;
  const auto counters = scheduler_.readback<uint64_t>(counters_.range(0, 24)).get();
  stats_.voxelUpdates = counters[0];
  stats_.droppedUpdates = counters[1];
  if (counters[2] != 0)
    throw Error("internal error: " + std::to_string(counters[2]) + " voxel updates found their region absent from the GPU cache");
}

}  // namespace voxen

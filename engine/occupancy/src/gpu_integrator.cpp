#include "voxen/occupancy/gpu_integrator.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "voxen/gpu/occupancy/discovery_shared.h"
#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/worker_crew.hpp"
#include "voxen/occupancy/host_stage_timer.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/occupancy/prepared_rays.hpp"
#include "voxen/occupancy/ray_batcher.hpp"
#include "voxen/occupancy/ray_record_pool.hpp"
#include "voxen/occupancy/ray_walk.hpp"
#include "voxen/occupancy/rejected_rays.hpp"

namespace voxen {

// The integrator's own work: the rays given (rejected ones accounted where they stood), the
// counters read back into the stats; the batches are the batcher's.
struct GpuIntegrator::Impl {
  Impl(Scheduler& scheduler, OccupancyMap& map, const IntegrationOptions& options, const GpuIntegratorOptions& gpuOptions)
      : scheduler(scheduler),
        map(map),
        options(options),
        gpuOptions(gpuOptions),
        pool(scheduler.device()),
        spanThreads(gpuOptions.spanPrepareThreads != 0 ? gpuOptions.spanPrepareThreads
                                                       : std::clamp(std::thread::hardware_concurrency(), 1u, 8u)),
        crew(spanThreads - 1, "ray preparing"),
        batcher(scheduler, map, this->options, this->gpuOptions, stats, timer) {
    recordNdtSettings(map, options.ndt);  // once the batcher has checked the map and the model
  }

  void addPrepared(const PreparedRays& prepared);
  void finish();

  Scheduler& scheduler;
  OccupancyMap& map;
  const IntegrationOptions options;
  const GpuIntegratorOptions gpuOptions;
  IntegrationStats stats;
  HostStageTimer timer;
  RayRecordPool pool;     // before everything that may lease its blocks (destroyed after them)
  std::vector<PreparedRays> scratch;  // integrate(span): a round of chunks prepared inline
  const unsigned spanThreads;  // threads preparing a round (GpuIntegratorOptions::spanPrepareThreads)
  WorkerCrew crew;             // spanThreads - 1 helpers, kept across calls (a frame a call)
  RayRecordPool::Lease copied;  // integrate(PreparedRays) of host records: their copy in the pool
  RayBatcher batcher;
  uint64_t raysSeen = 0;  // rays passed so far, rejected ones included (their index base)
  bool timeOriginSet = false;
  uint64_t synced = 0;  // batches already copied back by finish()
};

GpuIntegrator::GpuIntegrator(Scheduler& scheduler, OccupancyMap& map, IntegrationOptions options,
                             GpuIntegratorOptions gpuOptions)
    : impl_(std::make_unique<Impl>(scheduler, map, options, gpuOptions)) {}

GpuIntegrator::~GpuIntegrator() {
  // What was accepted must reach the map even when the caller forgot finish(); during
  // stack unwinding the map may be gone, so only then is it left alone.
  if (std::uncaught_exceptions() == 0 && (impl_->batcher.holdsRays() || impl_->stats.batches > impl_->synced)) {
    try {
      finish();
    } catch (const std::exception& e) {
      logMessage(LogLevel::Error, std::string("GpuIntegrator could not copy its regions back: ") + e.what());
    }
  }
}

// Inline preparation, into the record pool, in chunks: the same records as a worker's
// prepareRays would give, so every path builds the same map. A span of several chunks is
// prepared by up to spanPrepareThreads threads at once, a round of chunks at a time (so a
// huge span holds only a round's blocks; the threads are kept from call to call), and the
// chunks are handed to the batches in order.
void GpuIntegrator::integrate(std::span<const Ray> rays) {
  constexpr size_t kChunk = 16384;
  Impl& d = *impl_;
  d.timer.raysBegin();
  const size_t chunks = (rays.size() + kChunk - 1) / kChunk;
  const unsigned threads = unsigned(std::min<size_t>(chunks, d.spanThreads));
  d.scratch.resize(std::max(threads, 1u));
  std::vector<std::exception_ptr> errors(d.scratch.size());
  for (size_t round = 0; round < chunks; round += d.scratch.size()) {
    const unsigned count = unsigned(std::min(d.scratch.size(), chunks - round));
    const auto prepareChunk = [&](unsigned i) {
      try {
        const size_t first = (round + i) * kChunk;
        prepareRays(rays.subspan(first, std::min(kChunk, rays.size() - first)), d.map.model(), d.options,
                    d.gpuOptions.maxCrossingsPerSegment, d.scratch[i], &d.pool);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    };
    d.crew.run(count, prepareChunk);
    for (unsigned i = 0; i < count; ++i) {
      if (errors[i]) std::rethrow_exception(std::exchange(errors[i], nullptr));
      d.addPrepared(d.scratch[i]);
    }
  }
  // The blocks go back to the pool once the batches are done with them.
  for (PreparedRays& prepared : d.scratch) prepared.clear();
  d.timer.raysEnd();
}

void GpuIntegrator::integrate(const PreparedRays& prepared) {
  impl_->timer.raysBegin();
  impl_->addPrepared(prepared);
  impl_->timer.raysEnd();
}

// Copies the records into the batch in input order, counting the skipped rays where they
// stood (their indices count every ray given, as the CPU reference's do).
void GpuIntegrator::Impl::addPrepared(const PreparedRays& prepared) {
  if (prepared.inputRays == 0) return;
  if (!timeOriginSet && map.regions().empty()) map.setTimeOrigin(prepared.firstTime);
  timeOriginSet = true;
  const uint64_t base = raysSeen;
  size_t s = 0;
  auto skip = [&](const PreparedRays::Skipped& skipped) {
    const uint64_t index = base + skipped.position;
    if (skipped.problem == PreparedRays::Problem::TooLong)
      throw SettingError(SettingError::Kind::Change, "IntegrationOptions::maxRange", "the maximum range",
                         rayTooLongMessage(index, skipped.ray, skipped.regions, gpu::kMaxRegionsPerRay,
                                           "the GPU walks at most",
                                           options.maxRange > 0.0 ? "lower {}" : "set {}"),
                         options.maxRange > 0.0 ? formatNumber(options.maxRange) + " m" : "none");
    noteRejectedRay(stats, index, skipped.ray,
                    skipped.problem == PreparedRays::Problem::NonFinite ? RayFault::NonFinite
                    : skipped.problem == PreparedRays::Problem::TooFar  ? RayFault::TooFar
                                                                        : RayFault::NonFiniteIntensity);
  };
  // The records' block: the pool's own, or host records copied into one of its blocks (one
  // copy of the whole run, no work per record).
  const RayRecordPool::Lease* block = &prepared.block;
  if (prepared.recordCount > 0 && prepared.block.pool() != &pool) {
    if (prepared.block)
      throw std::invalid_argument("GpuIntegrator::integrate: rays prepared into another integrator's record pool");
    if (prepared.hostRecords.size() < prepared.recordCount)
      throw std::invalid_argument("GpuIntegrator::integrate: prepared rays without their records");
    copied = pool.acquire(prepared.recordCount);
    std::memcpy(static_cast<void*>(copied.records()), prepared.hostRecords.data(), prepared.recordCount * sizeof(gpu::GpuRay));
    block = &copied;
  }
  // Records and skipped rays merged by input position: the records before each skipped ray
  // go to the batcher as one run.
  uint32_t k = 0;
  for (; s <= prepared.skipped.size(); ++s) {
    uint32_t end = prepared.recordCount;
    if (s < prepared.skipped.size())
      end = uint32_t(std::lower_bound(prepared.positions.begin() + k, prepared.positions.end(), prepared.skipped[s].position) -
                     prepared.positions.begin());
    batcher.add(prepared, *block, k, end);
    k = end;
    if (s < prepared.skipped.size()) skip(prepared.skipped[s]);
  }
  copied = {};
  raysSeen = base + prepared.inputRays;
  stats.clippedRays += prepared.clippedRays;
}

void GpuIntegrator::sync() {
  impl_->batcher.drain();
  impl_->scheduler.finish();
}

void GpuIntegrator::finish() { impl_->finish(); }

void GpuIntegrator::Impl::finish() {
  timer.readbackBegin();
  batcher.drain();
  batcher.cache().syncToMap();
  synced = stats.batches;
  const auto stripes = scheduler.readback<uint64_t>(batcher.counters().range()).get();
  uint64_t counters[gpu::kCounterStride] = {};
  for (uint32_t s = 0; s < gpu::kCounterStripes; ++s)
    for (uint32_t k = 0; k < gpu::kCounterStride; ++k) counters[k] += stripes[s * gpu::kCounterStride + k];
  stats.voxelUpdates = counters[gpu::kCounterUpdates];
  stats.droppedUpdates = counters[gpu::kCounterDropped];
  stats.casRetries = counters[gpu::kCounterCasRetries];
  stats.rewalkedSegments = counters[gpu::kCounterRewalks];
  stats.ndtFoldInvocations = counters[gpu::kCounterNdtFoldInvocations];
  stats.ndtSampleVoxels = counters[gpu::kCounterNdtSampleVoxels];
  timer.readbackEnd();
  if (counters[gpu::kCounterMissingRegions] != 0)
    throw Error("internal error: " + std::to_string(counters[gpu::kCounterMissingRegions]) +
                " voxel updates found their region absent from the GPU cache");
}

const IntegrationStats& GpuIntegrator::stats() const { return impl_->stats; }

HostStageTimes GpuIntegrator::hostStageTimes() const {
  HostStageTimes times = impl_->timer.times();
  times.rays = impl_->raysSeen;
  return times;
}

RayRecordPool& GpuIntegrator::recordPool() { return impl_->pool; }

const RegionCacheStats& GpuIntegrator::cacheStats() const { return impl_->batcher.cache().stats(); }

size_t GpuIntegrator::cacheSlots() const { return impl_->batcher.cache().slotCount(); }

}  // namespace voxen

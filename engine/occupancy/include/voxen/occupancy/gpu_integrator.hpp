#pragma once
// GPU occupancy integration. Rays are prepared on the host (double precision in, float
// relative to each ray's origin voxel out) and written into a batch; that is all the host
// does per ray. Per batch, region discovery on the GPU walks every ray at region resolution,
// cuts it into segments of bounded length and lists the batch's distinct regions
// (RegionDiscovery); the host makes them resident in the region cache (in chunks of at most
// its slots, when a batch touches more regions than the cache holds) and the passes run:
// an optional stop search, the miss pass (one invocation per segment, reverse walk by
// default), and the hits in the order IntegrationOptions::order asks for:
// - Sequential (the default): the hits are grouped by voxel with a stable radix sort; the
//   miss pass counts the misses on those voxels by the hits they fall between, and one
//   invocation per such voxel replays its updates in input order. The map equals the
//   sequential CPU reference's bit for bit, whatever the batch size.
// - TwoPhase: one hit pass after all the misses (cheaper; the map depends on the batch size).
// Batches are pipelined: when batch N+1 is closed its discovery is submitted and batch N is
// integrated, so the host never waits for the discovery it just submitted, and prepares
// batch N+2 while the GPU integrates.
#include <cstdint>
#include <memory>
#include <span>

#include "voxen/map/map.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/occupancy/gpu_integrator_options.hpp"
#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/occupancy/integration_stats.hpp"

namespace voxen {

class Scheduler;
struct PreparedRays;
class RayRecordPool;

class GpuIntegrator {
 public:
  GpuIntegrator(Scheduler& scheduler, OccupancyMap& map, IntegrationOptions options = {},
                GpuIntegratorOptions gpuOptions = {});
  ~GpuIntegrator();

  // Queues the rays; they are on the GPU (and maybe already integrated) when this returns.
  void integrate(std::span<const Ray> rays);
  // The same for rays prepared on any thread (prepareRays with this map's model, these
  // options and GpuIntegratorOptions::maxCrossingsPerSegment). Prepared into recordPool(),
  // the GPU reads their records where they were written and the calling thread does no work
  // per ray; prepared without a pool, their records are copied into it in one block. Gives
  // the map integrate() gives for the same rays.
  void integrate(const PreparedRays& prepared);
  // Where threads prepare records for this integrator (prepareRays, PreparedRayStream): any
  // thread may prepare into it while this integrator lives; PreparedRays holding its blocks
  // are destroyed or cleared before the integrator.
  RayRecordPool& recordPool();
  // Integrates what is queued, waits, and copies every resident region into the host map;
  // stats() is complete afterwards. The destructor calls it if batches are unsynced.
  void finish();
  // Integrates what is queued and waits until the GPU has done it, without copying anything
  // back: the regions stay in the GPU cache and the host map is brought up to date by a
  // later finish() (or the destructor). For callers that integrate frame by frame (a lidar
  // scan at a time) and need each frame in the map before the next arrives, or to time a
  // frame's latency. The map after the final finish() is the one a single finish() gives
  // for the same calls, bit for bit (a sync cuts a batch where it stands: in the two-phase
  // order, as a smaller --batch-size would). stats()' GPU counters wait for finish().
  void sync();
  const IntegrationStats& stats() const;
  // The host thread's own CPU time so far, by stage (complete after finish()).
  HostStageTimes hostStageTimes() const;
  const RegionCacheStats& cacheStats() const;
  size_t cacheSlots() const;

 private:
  // The batcher and the pass family's strategy (engine/occupancy/internal), as OHM keeps
  // GpuMap's state in GpuMapDetail: the header stays the API.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen

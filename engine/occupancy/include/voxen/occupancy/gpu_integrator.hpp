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
#include <memory>
#include <span>
#include <vector>

#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/map/map.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/host/streamed_input.hpp"

namespace voxen {

class HostStageTimer;
struct PreparedRays;
class Kernel;
class RadixSort;
class RegionDiscovery;
class StreamCompaction;
class Scheduler;
struct BufferUse;
struct DiscoveredRegion;
namespace gpu {
struct OccupancyPush;
struct GpuRay;
}

struct GpuIntegratorOptions {
  uint64_t cacheBytes = 256ull << 20;   // --gpu-cache-mb
  uint32_t maxRaysPerBatch = 1u << 17;  // --batch-size
  // Crossings one invocation walks at most (lavapipe stops loops after 65,535 iterations).
  uint32_t maxCrossingsPerSegment = 128;
};

class GpuIntegrator {
 public:
  GpuIntegrator(Scheduler& scheduler, OccupancyMap& map, IntegrationOptions options = {},
                GpuIntegratorOptions gpuOptions = {});
  ~GpuIntegrator();

  // Queues the rays; they are on the GPU (and maybe already integrated) when this returns.
  void integrate(std::span<const Ray> rays);
  // The same for rays prepared on any thread (prepareRays with this map's model, these
  // options and GpuIntegratorOptions::maxCrossingsPerSegment): the calling thread only
  // copies their records. Gives the map integrate() gives for the same rays.
  void integrate(const PreparedRays& prepared);
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
  const IntegrationStats& stats() const { return stats_; }
  // The host thread's own CPU time so far, by stage (complete after finish()).
  HostStageTimes hostStageTimes() const;
  const RegionCacheStats& cacheStats() const { return cache_.stats(); }
  size_t cacheSlots() const { return cache_.slotCount(); }

 private:
  struct Batch;
  struct PendingBatch;
  // What one chunk of a batch's regions runs: the stop search alone (every chunk's, before
  // any update, when a batch has several chunks), the updates, or both.
  enum class ChunkWork { StopSearch, Updates, StopSearchAndUpdates };
  void addPrepared(const PreparedRays& prepared);
  void addRecord(const gpu::GpuRay& record, uint32_t regionCount);
  RegionKey regionOf(const VoxelCoord& voxel) const;
  void flush();
  void integratePending();
  void integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t chunk, const PendingBatch& batch, ChunkWork work);
  uint32_t passFlags() const;
  void selectKernels(uint32_t flags);
  void setUpHitSort();
  void setUpNdt();
  // Grouping hits by voxel (the sequential order and NDT): the push fields and tables, the
  // hit keys pass, the sort.
  uint32_t prepareHitKeys(gpu::OccupancyPush& push, std::vector<BufferUse>& uses, const std::vector<uint32_t>& keySlots);
  void recordHitKeysPass(gpu::OccupancyPush push, const std::vector<BufferUse>& uses);
  void recordHitSort(uint32_t rayCount, uint32_t keyBits);
  void recordSequentialPasses(const gpu::OccupancyPush& batchPush, const std::vector<BufferUse>& batchUses,
                              const std::vector<uint32_t>& keySlots, uint32_t segmentCount);
  void recordNdtPasses(const gpu::OccupancyPush& batchPush, const std::vector<BufferUse>& batchUses,
                       const std::vector<uint32_t>& keySlots, const std::vector<RegionKey>& keys, uint32_t segmentCount);

  Scheduler& scheduler_;
  OccupancyMap& map_;
  IntegrationOptions options_;
  GpuIntegratorOptions gpuOptions_;
  RegionCache cache_;
  std::shared_ptr<Kernel> stopKernel_, missKernel_, hitKernel_;
  // The sequential order's passes.
  std::shared_ptr<Kernel> hitKeysKernel_, hitMarkKernel_, hitResolveKernel_, orderedMissArgsKernel_, orderedMissesKernel_;
  // NDT: the runs of each sample voxel and their fold.
  std::shared_ptr<Kernel> ndtRunsKernel_, ndtMissesKernel_, ndtFoldKernel_;
  std::unique_ptr<StreamCompaction> compaction_;
  Buffer ndt_;  // gpu::NdtParams, then the run total, the chunk-level lists and the slot keys
  uint64_t ndtSlotKeysOffset_ = 0;
  std::vector<uint32_t> slotKeys_;  // the region key of each cache slot (ivec4), uploaded per batch
  std::vector<uint32_t> ndtLevelTemplate_;  // the chunk-level lists emptied, uploaded per batch
  StreamedInput rays_;  // rewritten every batch
  std::unique_ptr<RegionDiscovery> discovery_;  // the batch's regions, segments and region lists
  std::vector<uint32_t> entrySlots_;  // per discovery set entry: its slot in the current chunk
  Buffer stop_, counters_;
  Buffer ordered_;                    // sequential order and NDT: gpu::kOrdered* arrays
  std::unique_ptr<RadixSort> sort_;   // sequential order and NDT: groups hits by voxel
  std::vector<uint32_t> batchOfSlot_;  // sequential order: each cache slot's batch region index
  std::unique_ptr<Batch> batch_;
  std::unique_ptr<PendingBatch> pending_;
  std::unique_ptr<PreparedRays> scratch_;  // integrate(span): each chunk prepared inline  // discovered (or being discovered), not yet integrated
  std::unique_ptr<HostStageTimer> timer_;
  int regionShift_ = -1;  // log2 of the region size when it is a power of two
  uint64_t raysSeen_ = 0;  // rays passed so far, rejected ones included (their index base)
  uint64_t batchStamp_ = 0;
  bool timeOriginSet_ = false;
  uint64_t synced_ = 0;  // batches already copied back by finish()
  IntegrationStats stats_;
};

}  // namespace voxen

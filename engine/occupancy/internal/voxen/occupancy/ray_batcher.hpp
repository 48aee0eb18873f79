#pragma once
// The GPU integrator's batches: prepared ray records are copied into a batch in place; when
// a batch closes, its region discovery is submitted and the batch before it is integrated
// (so the host never waits for the discovery it just submitted, and prepares the next batch
// while the GPU integrates). A batch's regions are made resident in the region cache in
// chunks of at most its slots; per chunk the batcher records the stop search (every chunk's,
// before any update, when a batch has several chunks) and has the pass family's strategy
// record the updates.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "voxen/host/buffer.hpp"
#include "voxen/host/streamed_input.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/occupancy/integration_strategy.hpp"
#include "voxen/occupancy/region_discovery.hpp"

namespace voxen {

class HostStageTimer;

class RayBatcher {
 public:
  // `stats` (rays, batches, region chunks) and `timer` outlive the batcher.
  RayBatcher(Scheduler& scheduler, OccupancyMap& map, const IntegrationOptions& options,
             const GpuIntegratorOptions& gpuOptions, IntegrationStats& stats, HostStageTimer& timer);
  ~RayBatcher();

  // Copies prepared records into the batch in order (closing it before a record that does
  // not fit it, and whenever it is full). A run of records per call, so that the per-record
  // copy stays inside this file (the integration thread's whole work per ray).
  void add(std::span<const gpu::GpuRay> records, std::span<const uint32_t> regionCounts);
  // Closes the batch being filled and integrates every batch before it: all that was added
  // is submitted when this returns.
  void drain();
  // Rays added and not yet submitted for integration.
  bool holdsRays() const;

  RegionCache& cache() { return cache_; }
  const RegionCache& cache() const { return cache_; }
  // The striped gpu::kCounter* counters every pass adds to.
  const Buffer& counters() const { return counters_; }

 private:
  struct Batch;
  struct PendingBatch;
  // What one chunk of a batch's regions runs: the stop search alone (every chunk's, before
  // any update, when a batch has several chunks), the updates, or both.
  enum class ChunkWork { StopSearch, Updates, StopSearchAndUpdates };
  RegionKey regionOf(const VoxelCoord& voxel) const;
  void addRecord(const gpu::GpuRay& record, uint32_t regionCount);
  void flush();
  void integratePending();
  void integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t chunk, const PendingBatch& batch, ChunkWork work);

  Scheduler& scheduler_;
  OccupancyMap& map_;
  const GpuIntegratorOptions& gpuOptions_;
  IntegrationStats& stats_;
  HostStageTimer& timer_;
  RegionCache cache_;
  StreamedInput rays_;  // rewritten every batch
  std::unique_ptr<RegionDiscovery> discovery_;  // the batch's regions, segments and region lists
  uint32_t passFlags_ = 0;
  std::unique_ptr<IntegrationStrategy> strategy_;
  std::shared_ptr<Kernel> stopKernel_;
  Buffer stop_, counters_;
  std::vector<uint32_t> entrySlots_;  // per discovery set entry: its slot in the current chunk
  std::unique_ptr<Batch> batch_;
  std::unique_ptr<PendingBatch> pending_;  // discovered (or being discovered), not yet integrated
  int regionShift_ = -1;  // log2 of the region size when it is a power of two
  uint64_t batchStamp_ = 0;
  uint32_t largestBatch_ = 0;  // the most rays a batch's buffer has held (where the next one starts)
};

}  // namespace voxen

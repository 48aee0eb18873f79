#pragma once
// The GPU integrator's batches: a batch is a list of parts, runs of prepared records where
// the preparing threads wrote them (PreparedRays in a RayRecordPool block); the batches' rules
// (size, span, list bounds) are applied per run from the records' running sums and region
// bounds, so the host does no work per ray. When a batch closes, the GPU assembles its rays
// (batch_assembly_shared.h: a copy per part; discovery adds the parts' offsets), its region discovery is submitted with it and the batch
// before it is integrated (so the host never waits for the discovery it just submitted, and
// prepares the next batch while the GPU integrates). Once batches find their regions resident
// (ResidencyLookup), a batch's discovery looks them up in the cache's GPU hash table and its
// passes are submitted with it, in one submission; the host reads its region list afterwards
// and integrates the regions that were not resident as a later chunk. A batch's regions are made resident in the region cache in
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
#include "voxen/occupancy/prepared_rays.hpp"
#include "voxen/occupancy/ray_record_pool.hpp"
#include "voxen/occupancy/region_discovery.hpp"

namespace voxen {

class HostStageTimer;

class RayBatcher {
 public:
  // `stats` (rays, batches, region chunks) and `timer` outlive the batcher.
  RayBatcher(Scheduler& scheduler, OccupancyMap& map, const IntegrationOptions& options,
             const GpuIntegratorOptions& gpuOptions, IntegrationStats& stats, HostStageTimer& timer);
  ~RayBatcher();

  // Adds records [first, end) of `rays`, whose records are in `block`, to the batches in
  // order (closing a batch before a record that does not fit it, and whenever it is full).
  // The batches keep the block leased until the GPU has read it.
  void add(const PreparedRays& rays, const RayRecordPool::Lease& block, uint32_t first, uint32_t end);
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
  bool nearOrigin(const RegionKey& key) const;
  // How many of records [first, end) the open batch takes (at least one when it is empty).
  uint32_t recordsThatFit(const PreparedRays& rays, const RayRecordPool::Lease& block, uint32_t first, uint32_t end) const;
  struct Assembled {
    BufferRange rays;   // the batch's rays, their offsets still per chunk where partCount > 0
    BufferRange parts;  // gpu::RayPartOffsets[partCount], for discovery to add
    uint32_t partCount = 0;
  };
  Assembled assemble();
  void flush();
  // Whether the batch being closed looks its regions up on the GPU (ResidencyLookup).
  bool resolveOnGpu() const;
  void integratePending();
  // Integrates the pending batch at once and lowers the defer flag (after an overflow).
  void settleDeferral();
  // The push constants and buffer uses every chunk of `batch` shares; `entrySlots` is the
  // chunk's slot table.
  gpu::OccupancyPush chunkPush(const PendingBatch& batch, const BufferRange& entrySlots,
                               std::vector<BufferUse>& uses) const;
  // Records the passes of the regions the GPU finds resident, into the batch's submission.
  void recordResolvedChunk(PendingBatch& batch);
  void integrateChunk(const std::vector<DiscoveredRegion>& regions, size_t chunk, const PendingBatch& batch, ChunkWork work);

  Scheduler& scheduler_;
  OccupancyMap& map_;
  const GpuIntegratorOptions& gpuOptions_;
  IntegrationStats& stats_;
  HostStageTimer& timer_;
  RegionCache cache_;
  Buffer batchRays_[2];  // the assembled rays of a batch, alternating as discovery does
  uint32_t batchCopy_ = 0;
  std::unique_ptr<RegionDiscovery> discovery_;  // the batch's regions, segments and region lists
  uint32_t passFlags_ = 0;
  std::unique_ptr<IntegrationStrategy> strategy_;
  std::shared_ptr<Kernel> stopKernel_;
  Buffer stop_, counters_;
  std::vector<uint32_t> entrySlots_;  // per discovery set entry: its slot in the current chunk
  std::unique_ptr<Batch> batch_;
  std::unique_ptr<PendingBatch> pending_;  // discovered (or being discovered), not yet integrated
  VoxelToRegion regionOf_;
  uint64_t batchStamp_ = 0;
  // Batches integrated in a row that found every region resident (ResidencyLookup::Adaptive).
  uint32_t residentStreak_ = 0;
  bool deferFlagRaised_ = false;
  uint32_t uncollectedLookups_ = 0;  // batches that looked up on the GPU, not yet collected  // a resolving discovery overflowed (RegionDiscovery::clearDeferFlag)
};

}  // namespace voxen

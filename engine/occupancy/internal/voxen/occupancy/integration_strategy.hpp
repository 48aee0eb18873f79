#pragma once
// The GPU integrator's pass families behind one interface: the batcher (RayBatcher) owns
// what every family shares (batches, region discovery, residency and chunking, the stop
// search, the counters) and calls the family's strategy once per region chunk to record
// that chunk's updates. Each strategy owns its kernels and scratch buffers:
// - TwoPhaseStrategy: the miss pass, then one hit pass (two_phase_strategy.hpp);
// - SequentialStrategy: misses and hits replayed voxel by voxel in input order
//   (sequential_strategy.hpp);
// - NdtStrategy: free space, then each sample voxel's hits folded in input order
//   (ndt_strategy.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/map/map.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/integration_options.hpp"

namespace voxen {

class Kernel;
class Scheduler;
struct BufferUse;

// What a strategy is built from; the references outlive it.
struct StrategySetup {
  Scheduler& scheduler;
  const OccupancyMap& map;
  const IntegrationOptions& options;
  const GpuIntegratorOptions& gpuOptions;
  uint32_t cacheSlots;  // the region cache's slots: a chunk's regions at most
  uint32_t passFlags;   // what the kernels are specialised on (occupancyPassFlags)
};

// One chunk of a batch as the batcher set it up: the push constants (every field but those
// a family adds), the buffers every pass of the chunk uses, and the chunk's regions.
struct ChunkPasses {
  const gpu::OccupancyPush& push;
  const std::vector<BufferUse>& uses;
  const std::vector<RegionKey>& keys;     // the chunk's regions
  const std::vector<uint32_t>& keySlots;  // the cache slot of each
  uint32_t segmentCount;
};

class IntegrationStrategy {
 public:
  virtual ~IntegrationStrategy() = default;
  // Records the chunk's updates into the scheduler's current batch; the batcher submits.
  virtual void recordUpdates(const ChunkPasses& chunk) = 0;
};

// The flags the passes are specialised on (constant_id 0 in map_access.glsl): the map's
// layers, the pass family, the walk direction and stop-on-occupied.
uint32_t occupancyPassFlags(const OccupancyMap& map, const IntegrationOptions& options);

// An occupancy kernel specialised on `flags`: lavapipe runs every branch of a shader whether
// or not a lane takes it, so the code of the layers and walk directions a map does not use
// must be compiled out to cost nothing. The library keeps one pipeline per variant, shared
// by integrators with the same flags.
std::shared_ptr<Kernel> occupancyKernel(Scheduler& scheduler, const char* shader, uint32_t flags);

// The strategy of the family setup.passFlags names; throws when the options ask for what
// that family cannot do.
std::unique_ptr<IntegrationStrategy> makeIntegrationStrategy(const StrategySetup& setup);

}  // namespace voxen

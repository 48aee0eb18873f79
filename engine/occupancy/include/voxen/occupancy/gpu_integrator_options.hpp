#pragma once
// The GPU integrator's sizes (voxen/occupancy/gpu_integrator.hpp), apart from the integrator so
// that a Mapper's options (voxen/mapper.hpp) name them without the region cache and the
// scheduler behind it.
#include <cstdint>

namespace voxen {

// Where a batch's regions are looked up in the GPU region cache.
enum class ResidencyLookup {
  // On the GPU while the batches before found every region resident (a lidar frame over a
  // map already built, a robot in known space), else on the host: the default.
  Adaptive,
  // On the host, from the batch's region list read back after its discovery and before its
  // passes are submitted (two submissions and a wait per batch).
  Host,
  // On the GPU, in the batch's own submission: discovery, the lookup and the passes are
  // submitted together and the host reads the region list afterwards; the regions that were
  // not resident are then loaded and integrated as a second chunk (a voxel's updates depend
  // only on the voxel, so the map is the same). For tests: a batch that meets new regions
  // runs its passes twice.
  Gpu,
};

struct GpuIntegratorOptions {
  uint64_t cacheBytes = 256ull << 20;   // --gpu-cache-mb
  uint32_t maxRaysPerBatch = 1u << 17;  // --batch-size
  // Crossings one invocation walks at most (lavapipe stops loops after 65,535 iterations).
  uint32_t maxCrossingsPerSegment = 128;
  // GpuIntegrator::integrate(span): threads that prepare a long span's chunks of 16,384 rays
  // at once (the calling thread is one of them), so that a lidar frame handed over whole is
  // prepared in a fraction of one thread's time. 0: the host's cores, at most 8; 1: the
  // calling thread alone. The records, and so the map, do not depend on it.
  uint32_t spanPrepareThreads = 0;
  ResidencyLookup residencyLookup = ResidencyLookup::Adaptive;
};

}  // namespace voxen

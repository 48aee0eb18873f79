#pragma once
// The GPU integrator's sizes (voxen/occupancy/gpu_integrator.hpp), apart from the integrator so
// that a Mapper's options (voxen/mapper.hpp) name them without the region cache and the
// scheduler behind it.
#include <cstdint>

namespace voxen {

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
};

}  // namespace voxen

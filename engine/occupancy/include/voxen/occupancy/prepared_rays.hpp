#pragma once
// Rays converted into the GPU integrator's upload format, apart from the integrator: the
// per-ray work (checks, double-precision preparation, the 80-byte record, its region and
// segment counts from the end points) done by any thread, so that the integration thread
// only copies records into the batch (GpuIntegrator::integrate(const PreparedRays&)).
// prepareRays is a pure function of its inputs: prepared on a worker or inline, the same
// rays give the same records and the same map.
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/map/map.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/occupancy/integration_options.hpp"

namespace voxen {

struct PreparedRays {
  // Rays that cannot be walked (non-finite, too far, NDT-TM's non-finite intensity) or may not be walked on the GPU (too
  // many regions or segments for one invocation): the integrator counts the first kind and
  // throws for the second when it reaches them, naming the ray.
  enum class Problem : uint8_t { NonFinite, TooFar, TooLong, NonFiniteIntensity };
  struct Skipped {
    uint32_t position = 0;  // index in the input span
    Problem problem = Problem::NonFinite;
    uint64_t regions = 0;   // TooLong: the regions it crosses
    Ray ray;
  };
  uint32_t inputRays = 0;                 // rays given (records + skipped)
  double firstTime = 0.0;                 // the first input ray's time (the map's time origin)
  std::vector<gpu::GpuRay> records;       // the walkable rays in input order; slotBase and
                                          // segmentBase are the integrator's to fill
  std::vector<uint32_t> regionCounts;     // per record: the regions its walk enters
  std::vector<uint32_t> positions;        // per record: its index in the input span
  std::vector<Skipped> skipped;           // in input order
  uint64_t clippedRays = 0;

  void clear();
};

// Fills `out` (cleared first) from `rays` under the map's model and the options;
// maxCrossingsPerSegment as GpuIntegratorOptions has it.
void prepareRays(std::span<const Ray> rays, const OccupancyModel& model, const IntegrationOptions& options,
                 uint32_t maxCrossingsPerSegment, PreparedRays& out);

}  // namespace voxen

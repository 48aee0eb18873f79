#pragma once
// Rays converted into the GPU integrator's upload format, apart from the integrator: the
// per-ray work (checks, double-precision preparation, the 80-byte record, its region and
// segment counts from the end points, their running sums) done by any thread. Prepared into
// the integrator's record pool (GpuIntegrator::recordPool), the records are written straight
// into memory the GPU reads, and the integration thread does no work per ray
// (GpuIntegrator::integrate(const PreparedRays&) hands the GPU runs of records); prepared
// without a pool they land in host memory, and integrate() copies them into the pool in one
// block. prepareRays is a pure function of its inputs: prepared on a worker or inline, into
// a pool or not, the same rays give the same records and the same map.
#include <cstdint>
#include <span>
#include <vector>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include "voxen/map/map.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/occupancy/ray_record_pool.hpp"

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
  uint32_t recordCount = 0;               // the walkable rays, in input order
  // Their GPU records: in a block of a record pool (written once, never read on the host),
  // or in host memory when prepared without one. Each record's slotBase and segmentBase are
  // regionOffsets[k] and segmentOffsets[k] modulo 2^32; the integrator adds the batch's.
  RayRecordPool::Lease block;
  std::vector<gpu::GpuRay> hostRecords;
  // recordCount + 1 running sums from 0: the region list entries (regions its walk enters)
  // and the segments of the records before record k.
  std::vector<uint64_t> regionOffsets, segmentOffsets;
  std::vector<uint32_t> positions;        // per record: its index in the input span
  // The regions of every record's start and end voxels lie in [regionMin, regionMax]
  // (when recordCount > 0): the batches' span rule tested once per run of records.
  RegionKey regionMin, regionMax;
  std::vector<Skipped> skipped;           // in input order
  uint64_t clippedRays = 0;

  uint32_t regionCount(uint32_t record) const { return uint32_t(regionOffsets[record + 1] - regionOffsets[record]); }
  // Empties it; the lease is let go (a pool block another holder still reads stays theirs).
  void clear();
};

// Fills `out` (cleared first) from `rays` under the map's model and the options;
// maxCrossingsPerSegment as GpuIntegratorOptions has it. With a pool the records go into one
// of its blocks (leased by `out`), else into out.hostRecords.
void prepareRays(std::span<const Ray> rays, const OccupancyModel& model, const IntegrationOptions& options,
                 uint32_t maxCrossingsPerSegment, PreparedRays& out, RayRecordPool* pool = nullptr);

}  // namespace voxen

#pragma once
// Region discovery on the GPU against the host's region walk (regionsOnRay), for the tests
// and `voxen check`: the rays are prepared as GpuIntegrator prepares them and discovered as
// one batch; for every ray, the regions its list names (in walk order), its sample region
// and its segments must be exactly the host's, and the batch's distinct regions exactly
// their union, each once, sorted.
#include <cstdint>
#include <span>
#include <string>

#include "voxen/map/map.hpp"
#include "voxen/map/ray.hpp"

namespace voxen {

class Scheduler;

struct DiscoveryComparison {
  uint64_t rays = 0;
  uint64_t regionEntries = 0;  // region-list entries compared (every ray's regions)
  uint64_t segments = 0;
  // Region-list entries, sample regions and segments that differ from the host's walk.
  uint64_t mismatches = 0;
  std::string firstMismatch;  // where, in words
  uint64_t distinctRegions = 0;    // regions the GPU listed
  bool listIsUnion = false;        // ... exactly the union of the rays' regions, sorted
  uint64_t setGrowths = 0;         // times the GPU's set overflowed and was doubled
  bool identical() const { return mismatches == 0 && listIsUnion; }
};

struct DiscoveryComparisonOptions {
  uint32_t maxCrossings = 128;  // GpuIntegratorOptions::maxCrossingsPerSegment
  // Test-only (voxen check's switch): the host walk's sample region of the first ray is
  // moved one region along x, so the comparison must find a mismatch.
  bool breakReference = false;
};

// Throws Error when a ray is one the integrators would refuse (checkRay).
DiscoveryComparison compareDiscoveryWithHostWalk(Scheduler& scheduler, std::span<const Ray> rays,
                                                 const OccupancyModel& model, const DiscoveryComparisonOptions& options = {});

}  // namespace voxen

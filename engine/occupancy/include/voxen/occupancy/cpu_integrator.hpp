#pragma once
// The single-threaded CPU reference integrator: the same model and the same voxel walk as
// the GPU path, used by the tests and by `voxen map --cpu`. A batch is integrated as the GPU
// does it: "stop on first occupied" judged against the map before the batch, then every
// miss, then every hit, so a hit is never eroded by the misses of its own batch.
#include <span>

#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/map/map.hpp"
#include "voxen/occupancy/integration_options.hpp"

namespace voxen {

struct PreparedRay;

class CpuIntegrator {
 public:
  CpuIntegrator(OccupancyMap& map, IntegrationOptions options = {});
  void integrate(std::span<const Ray> rays);
  const IntegrationStats& stats() const { return stats_; }

 private:
  void checkRegionBudget(const PreparedRay& r, uint64_t index, const Ray& ray) const;

  OccupancyMap& map_;
  IntegrationOptions options_;
  IntegrationStats stats_;
  uint64_t raysSeen_ = 0;  // rays passed so far, rejected ones included (their index base)
  bool timeOriginSet_ = false;
};

// One log-odds update as both integrators apply it: unobserved starts from 0, then clamp.
inline float updatedValue(float value, float delta, float clampMin, float clampMax) {
  const float base = isObserved(value) ? value : 0.0f;
  return std::min(std::max(base + delta, clampMin), clampMax);
}

}  // namespace voxen

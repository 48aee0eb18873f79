#pragma once
// The single-threaded CPU reference integrator: the same model and the same voxel walk as
// the GPU path, used by the tests and by `voxen map --cpu`. It applies a batch in one of two
// orders (IntegrationOptions::order):
//
// - Sequential (the default, what OHM and OctoMap do): ray after ray in input order, each
//   ray's misses along its walk and then its hit, its stop point judged on the map as the
//   rays before it left it. The map does not depend on how rays are cut into batches. The
//   GPU's sequential order gives this map bit for bit (except with "stop on first
//   occupied", which the GPU judges per batch); it is also the map-fidelity reference
//   (the Jaccard column of `voxen bench map`).
// - TwoPhase: "stop on first occupied" judged against the map before the batch, then every
//   miss of the batch, then every hit, so a hit is never eroded by the misses of its own
//   batch. The GPU's two-phase order gives this map bit for bit when fed the same batches.
//   With one ray per batch the two orders give the same map.
//
// Both orders use the same walk, flags and clamped update (updatedValue); every update is
// clamped as it is applied.
#include <span>
#include <vector>

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
  UpdateOrder order() const { return options_.order; }

 private:
  void checkRegionBudget(const PreparedRay& r, uint64_t index, const Ray& ray) const;
  std::vector<PreparedRay> prepareBatch(std::span<const Ray> rays);

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

#pragma once
// How an integrator applies rays to the map: the per-ray flags and the range limit.
#include <cstdint>

#include "voxen/host/flags.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/occupancy/ndt_model.hpp"

namespace voxen {

// How rays update the map. Defaults: reverse walk (sample towards sensor), the sample voxel
// gets a hit, every other voxel on the way a miss.
enum class RayFlag : uint32_t {
  EndPointAsFree = 1u << 0,        // no-return rays: the sample voxel is a miss too
  ExcludeOrigin = 1u << 1,         // leave the sensor's own voxel alone
  ExcludeSample = 1u << 2,         // leave the sample voxel alone
  // Stop before the first voxel that was occupied when the batch began (judged on the map
  // before the batch, so the result does not depend on ray order); a sample voxel that is
  // that voxel still gets its hit. The CPU's sequential order (UpdateOrder::Sequential)
  // judges it on the map as the rays before this one left it.
  StopOnFirstOccupied = 1u << 3,
  ForwardWalk = 1u << 4,           // walk sensor towards sample (default: reverse)
};
using RayFlags = Flags<RayFlag>;
constexpr RayFlags operator|(RayFlag a, RayFlag b) { return RayFlags(a) | b; }

// The order in which a batch's updates reach the map.
// - Sequential: ray after ray in input order, each ray's misses along its walk and then its
//   hit, clamped at every update (what OHM and OctoMap do). The map does not depend on how
//   the rays are cut into batches.
// - TwoPhase: every miss of a batch, then every hit, so a hit is never eroded by the
//   misses of its own batch. Cheaper on the GPU, but the map depends on the batch size.
// - OnePass: OHM's GPU order. On the GPU each ray's misses and then its hit are applied in
//   one pass, the rays of a batch concurrently with nothing ordered between them: the
//   cheapest, but where one ray of a batch hits a voxel that another misses, the result is
//   whichever update the hardware happened to apply last, so the map is not reproducible
//   from run to run (BENCHMARKS.md gives its Jaccard index against Sequential). The CPU
//   integrator, which has one ray at a time, applies it as Sequential. Not with NDT.
enum class UpdateOrder { Sequential, TwoPhase, OnePass };

inline const char* updateOrderName(UpdateOrder order) {
  switch (order) {
    case UpdateOrder::Sequential: return "sequential";
    case UpdateOrder::TwoPhase: return "two-phase";
    case UpdateOrder::OnePass: return "one-pass";
  }
  return "?";
}

struct IntegrationOptions {
  RayFlags flags{};
  double maxRange = 0.0;  // > 0: longer rays are clipped there and their end is free
  UpdateOrder order = UpdateOrder::Sequential;
  // NDT-OM / NDT-TM (voxen/occupancy/ndt.hpp) when ndt.mode is not Off: the map must have
  // ndtLayout(mode)'s layers. Not with RayFlag::StopOnFirstOccupied; the GPU integrates NDT in
  // two-phase order only.
  NdtModel ndt{};  // {}: designated initializers may leave it out without -Wmissing-field-initializers
};

}  // namespace voxen

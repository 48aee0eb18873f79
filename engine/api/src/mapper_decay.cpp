// The Mapper's occupancy decay towards unknown (MapperRunOptions::decaySeconds, issue 38 item
// 5): before and after each integrate call, with T the newest ray time handed to the Mapper
// so far (the call's rays included), every observed voxel touched before T - decay is
// forgotten (voxen/occupancy/occupancy_decay.hpp says what that resets). Before: a voxel seen
// again after a gap longer than the decay starts from unknown, not from what it held; after:
// no voxel the call's rays left older than the cut stays observed.
//
// Both backends forget on the host map with the same code, so the GPU Mapper's map equals the
// CPU reference's bit for bit: the GPU integrator is synced first (every voxel its cache
// changed is then in the host map), and when anything is forgotten it is retired, as the local
// window and the clearance do, since its cache holds copies from before (the next rays get a
// new integrator, which loads what they touch from the host map). Forgetting is idempotent and
// monotone in the cut, so a region forgotten late (a map loaded with outdated voxels, a region
// created after its voxels' time) ends as an eager forget would leave it. Regions left with no
// observed voxel stay in the map (unobserved everywhere, as a region a ray crossed without an
// update does), in both backends alike.
#include <cmath>
#include <sstream>
#include <string>

#include "mapper_impl.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/occupancy/occupancy_decay.hpp"

namespace voxen {

namespace {

const char* const kDecayField = "MapperRunOptions::decaySeconds";

}  // namespace

void checkDecaySetting(const MapperRunOptions& run) {
  if (!run.decaySeconds) return;
  const double d = *run.decaySeconds;
  if (d >= 0.0) return;  // NaN fails this too
  std::ostringstream value;
  value << d;
  throw SettingError(SettingError::Kind::Invalid, kDecayField, "the decay time",
                     "{} must be a number of seconds, at least 0, got " + value.str());
}

void requireDecayLayer(const OccupancyMap& map, const MapperRunOptions& run, const std::string& name) {
  if (run.decaySeconds && !map.layout().has(kTouchTimeLayer))
    throw SettingError(SettingError::Kind::Change, kDecayField, "occupancy decay",
                       name + ": {} needs the map's touch-time layer (when each voxel was last seen), and it has " +
                           map.layout().names() + "; map with the touch-time layer or without decay");
}

void Mapper::Impl::noteRayTimes(std::span<const Ray> rays) {
  if (!run.decaySeconds) return;
  // The touch time a ray writes (at least 0; ray_walk.cpp), over the finite ones.
  for (const Ray& ray : rays)
    if (std::isfinite(ray.time)) newestRayTime = std::max(newestRayTime, ray.time > 0.0 ? ray.time : 0.0);
}

void Mapper::Impl::applyDecay() {
  if (!run.decaySeconds || !std::isfinite(newestRayTime)) return;
  // Regions paged out to a region source would miss the forgetting while out (and come back
  // in the middle of a call's rays): not supported yet.
  if (map.regionSource())
    throw SettingError(SettingError::Kind::Change, kDecayField, "occupancy decay",
                       "{} does not work with a map paged out to a region source (a store mapping run) yet: map without "
                       "one, or without decay");
  const double cut = newestRayTime - *run.decaySeconds;
  sync();  // the GPU's changes are in the host map (nothing to do for the CPU reference)
  const std::vector<RegionKey> keys = regionsToForget(map, cut);
  if (keys.empty()) return;
  retireGpu();  // its cache holds copies of voxels about to be forgotten
  forgetOutdatedVoxels(map, cut, &keys);
  queriesStale = true;
  changedSincePublished = true;
}

}  // namespace voxen

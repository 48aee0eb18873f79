#include "voxen/clearance/clearance_changes.hpp"

#include <glm/common.hpp>
#include <glm/ext/vector_int3_sized.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "voxen/clearance/voxel_squares.hpp"

namespace voxen {

namespace {

struct VoxelBox {
  glm::ivec3 lo{0}, hi{0};  // [lo, hi); empty when any hi <= lo
  bool empty() const { return hi.x <= lo.x || hi.y <= lo.y || hi.z <= lo.z; }
  void add(const VoxelBox& b) {
    if (b.empty()) return;
    if (empty()) *this = b;
    else lo = glm::min(lo, b.lo), hi = glm::max(hi, b.hi);
  }
};

// The region-local box of voxels whose obstacles differ between `prior` (an obstacle per voxel,
// as the clearance last computed it) and the region's occupancy now (isObstacle's rule, with
// the threshold's log-odds worked out once: this runs over every voxel of each changed region).
template <class PriorObstacle>
VoxelBox changedVoxels(const OccupancyMap& map, const Region& region, const ClearanceOptions& options,
                       const ObstacleBand& band, int64_t zBase, PriorObstacle prior) {
  const int n = map.regionSize();
  const std::span<const float> occupancy = region.occupancy();
  const float threshold = map.model().thresholdValue();
  const bool unknownObstacle = !options.unknownFree;
  VoxelBox box{glm::ivec3(n), glm::ivec3(0)};
  bool any = false;
  size_t i = 0;
  for (int z = 0; z < n; ++z) {
    const bool inBand = band.contains(zBase + z);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x, ++i) {
        const float value = occupancy[i];
        const bool now = inBand && (isObserved(value) ? value >= threshold : unknownObstacle);
        if (now == prior(i, inBand)) continue;
        any = true;
        box.lo = glm::min(box.lo, glm::ivec3(x, y, z));
        box.hi = glm::max(box.hi, glm::ivec3(x + 1, y + 1, z + 1));
      }
  }
  return any ? box : VoxelBox{};
}

}  // namespace

bool clearanceComputesParts(const OccupancyModel& model, const ClearanceOptions& options) {
  return options.technique == ClearanceTechnique::Exact && voxelSquares(model, options).has_value();
}

ClearanceBaseline clearanceBaseline(const OccupancyMap& map, const ClearanceOptions& options) {
  const LayerId layer = clearanceLayer();
  ClearanceBaseline baseline;
  baseline.settings = options.fingerprint();
  for (const auto& [key, region] : map.regions()) {
    const uint64_t stamp = map.layout().has(layer) ? region.derivedStamp[layer] : 0;
    baseline.regions.push_back({key, stamp});
    // Every class change before the computation is older than the stamps it gave (and a region
    // not recomputed had none since its own stamp).
    baseline.consistentAt = std::max(baseline.consistentAt, stamp);
  }
  return baseline;
}

std::optional<ClearancePlan> planClearanceUpdate(const OccupancyMap& map, const ClearanceOptions& options,
                                                 const ClearanceBaseline& baseline, bool partial) {
  const LayerId layer = clearanceLayer();
  if (!map.layout().has(layer) || baseline.settings != options.fingerprint() ||
      map.derivedSettings(layer) != baseline.settings)
    return std::nullopt;
  std::unordered_set<RegionKey, RegionKeyHash> known;
  for (const auto& [key, stamp] : baseline.regions) {
    const Region* region = map.findRegion(key);
    if (!region || stamp == 0 || region->derivedStamp[layer] != stamp) return std::nullopt;
    known.insert(key);
  }
  const OccupancyModel& model = map.model();
  const int n = map.regionSize();
  const glm::ivec3 pad = options.padding(model);
  const ObstacleBand band = options.band(model);
  const VoxelClass obstacleSet = options.unknownFree ? VoxelClass::Occupied : VoxelClass::Free;
  const VoxelBox whole{glm::ivec3(0), glm::ivec3(n)};
  ClearancePlan plan;
  std::unordered_map<RegionKey, VoxelBox, RegionKeyHash> boxes;
  for (const auto& [key, region] : map.regions()) {
    const bool isNew = !known.count(key);
    if (isNew) boxes[key].add(whole);  // never computed: all of it
    if (map.classSetStamp(key, obstacleSet) <= baseline.consistentAt) continue;
    const int64_t zBase = int64_t(key.z) * n;
    VoxelBox changed;
    if (isNew) {  // it read as a missing region: unobserved everywhere
      changed = changedVoxels(map, region, options, band, zBase,
                              [&](size_t, bool inBand) { return inBand && !options.unknownFree; });
    } else {  // the clearance computed then is 0 exactly on the obstacles it saw
      const std::span<const float> clearance = region.values<float>(layer);
      changed = changedVoxels(map, region, options, band, zBase, [&](size_t i, bool) { return clearance[i] == 0.0f; });
    }
    if (changed.empty()) continue;
    ++plan.changedRegions;
    // Every voxel within the padding of a changed one, in each region it reaches.
    // In 64 bits: a region at either end of the int32 voxel range reaches past it.
    const glm::i64vec3 origin = glm::i64vec3(key.x, key.y, key.z) * int64_t(n);
    const glm::i64vec3 lo = origin + glm::i64vec3(changed.lo - pad), hi = origin + glm::i64vec3(changed.hi + pad);
    for (const RegionKey& near : regionsWithinRange(key, model, options)) {
      if (!map.findRegion(near)) continue;
      const glm::i64vec3 nearOrigin = glm::i64vec3(near.x, near.y, near.z) * int64_t(n);
      const glm::i64vec3 partLo = glm::max(lo - nearOrigin, glm::i64vec3(0)), partHi = glm::min(hi - nearOrigin, glm::i64vec3(n));
      boxes[near].add(VoxelBox{glm::ivec3(partLo), glm::ivec3(partHi)});
    }
  }
  for (const auto& [key, box] : boxes) {
    if (box.empty()) continue;
    const VoxelBox done = partial ? box : whole;
    plan.targets.push_back({key, done.lo, done.hi});
  }
  std::sort(plan.targets.begin(), plan.targets.end(),
            [](const ClearanceTarget& a, const ClearanceTarget& b) { return a.key < b.key; });
  return plan;
}

}  // namespace voxen

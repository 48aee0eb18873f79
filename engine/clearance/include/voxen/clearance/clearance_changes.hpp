#pragma once
// Incremental clearance by changed voxels (issue 38, item 5): after a complete update every
// region's clearance layer is the exact transform of the obstacles the map had then, so the
// layer itself records them (0 exactly on an obstacle voxel, a positive distance or -1
// elsewhere). The next update compares each region whose obstacle set changed since (its
// class stamp) with that record, voxel by voxel, and takes the changed voxels' bounding box;
// a voxel's clearance depends only on the obstacles within the padding of it per axis, so
// only the part of each region within the padding of a changed box is recomputed (whole
// regions when the technique's output is not exact in integers; see planClearanceUpdate).
// Regions without a change within range are skipped even when a stamp moved (a voxel that
// crossed and crossed back).
#include <glm/vec3.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// A region whose clearance is recomputed, and the voxels of it that are: [lo, hi) in
// region-local voxel coordinates (the whole region: 0 and the region size).
struct ClearanceTarget {
  RegionKey key;
  glm::ivec3 lo{0}, hi{0};
  uint64_t voxels() const { return uint64_t(hi.x - lo.x) * uint64_t(hi.y - lo.y) * uint64_t(hi.z - lo.z); }
};

// What a map's clearance layer was consistent with after a complete computation or update:
// its settings, the map's change counter then (any class change since is stamped later), and
// every region with the stamp its clearance had (a region dropped, made again or recomputed
// by another caller since shows here, and then the baseline is not used).
struct ClearanceBaseline {
  std::string settings;
  uint64_t consistentAt = 0;
  std::vector<std::pair<RegionKey, uint64_t>> regions;
};

// Taken right after a computation that left every region of the map up to date (a complete
// computation, or an update of every out-of-date region).
ClearanceBaseline clearanceBaseline(const OccupancyMap& map, const ClearanceOptions& options);

struct ClearancePlan {
  std::vector<ClearanceTarget> targets;  // sorted by key
  uint64_t changedRegions = 0;           // regions with at least one changed obstacle voxel
};

// The regions (and parts of them) whose clearance the obstacle changes since `baseline` make
// out of date, plus every region never computed (whole). `partial`: parts of regions (the
// exact technique in integer voxel squares, whose values are exact minima and so do not depend
// on how far the block reaches); otherwise whole regions. nullopt when the baseline does not
// describe this map (other settings, a region dropped or recomputed elsewhere since): the
// caller falls back to clearanceDirtyRegions.
std::optional<ClearancePlan> planClearanceUpdate(const OccupancyMap& map, const ClearanceOptions& options,
                                                 const ClearanceBaseline& baseline, bool partial);

// Whether the GPU computes parts of regions exactly for these settings (the exact technique
// with one scale on every axis).
bool clearanceComputesParts(const OccupancyModel& model, const ClearanceOptions& options);

}  // namespace voxen

#pragma once
// Clearance: for every voxel of a map's regions, the Euclidean distance in metres from its
// centre to the nearest obstacle voxel's centre within a search range; 0 for an obstacle,
// kNoObstacleInRange (-1) when there is none within the range. An obstacle is an occupied
// voxel, and an unobserved one unless unknown space is declared free (a careful planner's
// default). Optional per-axis scaling weighs each axis' offsets (for example a small z scale
// nearly ignores height differences). The result is the map layer `clearance` (one float
// per voxel), saved and loaded like any other.
#include <glm/vec3.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/map/map.hpp"

namespace voxen {

inline constexpr float kNoObstacleInRange = gpu::kNoObstacleInRange;

// How the GPU computes it (the CPU reference is always exact):
// - Roi (the default): propagation inside the region only; the padding's obstacles within
//   range are seeded onto the nearest border voxel and its neighbours (atomics), then
//   ping-pong iterations over the region.
// - Neighbour: propagation over the region padded by the range, ping-pong, a fixed number
//   of iterations (enough for any obstacle within range to arrive by face steps).
// - OpenList: obstacles seed a work list; each iteration offers every listed voxel's
//   nearest obstacle to its face neighbours and lists those that got closer, until the
//   list is empty (sized on the GPU, dispatched indirectly; a hard cap of iterations).
// - Exact: a separable squared-distance transform over the padded block: exact Euclidean
//   distances, the GPU's reference.
// The propagation techniques keep the nearest obstacle found so far per voxel and pass it
// to face neighbours, which can miss the true nearest obstacle where two compete (the
// error `voxen bench clearance` measures).
enum class ClearanceTechnique { Roi, Neighbour, OpenList, Exact };
const char* clearanceTechniqueName(ClearanceTechnique technique);
// "roi", "neighbour", "openlist", "exact"; throws Error for another name.
ClearanceTechnique clearanceTechniqueNamed(const std::string& name);

struct ClearanceOptions {
  double range = 5.0;                 // metres
  ClearanceTechnique technique = ClearanceTechnique::Roi;
  bool unknownFree = false;           // unobserved voxels are free instead of obstacles
  glm::dvec3 axisScale{1.0, 1.0, 1.0};  // each axis' offsets are multiplied by this, in (0, 100]
  // Throws Error naming the field when a value cannot work for `model` (a range whose
  // padding passes the block limit names that limit).
  void validate(const OccupancyModel& model) const;
  // Padding per axis, in voxels: ceil(range / (resolution * scale)).
  glm::ivec3 padding(const OccupancyModel& model) const;  // The settings the layer's values depend on (the technique changes only the error), as
  // text: a map records it (OccupancyMap::derivedSettings) to know when all is stale.
  std::string fingerprint() const;
};

// The layer, registered on first use (call before loading a map that has it).
LayerId clearanceLayer();

// Whether a voxel value is an obstacle under `options`.
inline bool isObstacle(const OccupancyMap& map, float value, const ClearanceOptions& options) {
  if (!isObserved(value)) return !options.unknownFree;
  return value >= map.model().thresholdValue();
}

// The regions within the range of `key` (their keys, the map's or not): what a region's
// clearance depends on.
std::vector<RegionKey> regionsWithinRange(const RegionKey& key, const OccupancyModel& model, const ClearanceOptions& options);

// Incremental updates. A region's clearance is out of date when it was never computed with
// these settings, or when its occupancy or that of a region within the range changed since
// (the map's dirty stamps; the integrators mark what they change). The computations below
// record what they computed (OccupancyMap::markDerived).
std::vector<RegionKey> clearanceDirtyRegions(const OccupancyMap& map, const ClearanceOptions& options);
// Called by the computations before they start: the map's clearance layer, and when the
// settings differ from those recorded, every region marked out of date.
void prepareClearance(OccupancyMap& map, const ClearanceOptions& options);

struct ClearanceStats {
  uint64_t regions = 0;  // regions computed
  double seconds = 0.0;  // wall time of the computation
};

// The CPU reference: an exact separable squared-distance transform (Felzenszwalb and
// Huttenlocher's lower envelope of parabolas, one axis after another) over each target
// region's block padded by the range. Adds the clearance layer to the map when missing.
// `targets` empty: every region of the map.
ClearanceStats computeClearanceCpu(OccupancyMap& map, const ClearanceOptions& options,
                                   std::span<const RegionKey> targets = {});
// Only the regions out of date (clearanceDirtyRegions); none computed when none is.
ClearanceStats updateClearanceCpu(OccupancyMap& map, const ClearanceOptions& options);

}  // namespace voxen

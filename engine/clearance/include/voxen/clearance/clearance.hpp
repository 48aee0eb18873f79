#pragma once
// Clearance: for every voxel of a map's regions, the Euclidean distance in metres from its
// centre to the nearest obstacle voxel's centre within a search range; 0 for an obstacle,
// kNoObstacleInRange (-1) when there is none within the range. An obstacle is an occupied
// voxel, and an unobserved one unless unknown space is declared free (a careful planner's
// default). Optional per-axis scaling multiplies each axis' offsets, and obstacles below or
// above given heights can be left out. The result is the map layer `clearance` (one float
// per voxel), saved and loaded like any other, with the settings it was computed with.
#include <glm/vec3.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "voxen/gpu/clearance/clearance_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

inline constexpr float kNoObstacleInRange = gpu::kNoObstacleInRange;

// How the GPU computes it (the CPU reference is always exact):
// - Exact (the default): a separable squared-distance transform over the padded block:
//   exact Euclidean distances, bit for bit the CPU reference's, and the fastest technique
//   measured (README, BENCHMARKS.md).
// - Roi: propagation inside the region only; the padding's obstacles within range are
//   seeded onto the nearest border voxel and its neighbours (atomics), then ping-pong
//   iterations over the region.
// - Neighbour: propagation over the region padded by the range, ping-pong, a fixed number
//   of iterations (enough for any obstacle within range to arrive by face steps).
// - OpenList: obstacles seed a work list; each iteration offers every listed voxel's
//   nearest obstacle to its face neighbours and lists those that got closer, until the
//   list is empty (sized on the GPU, dispatched indirectly; a hard cap of iterations).
// The propagation techniques keep the nearest obstacle found so far per voxel and pass it
// to face neighbours, which can miss the true nearest obstacle where two compete (the
// error `voxen bench clearance` measures).
enum class ClearanceTechnique { Roi, Neighbour, OpenList, Exact };
const char* clearanceTechniqueName(ClearanceTechnique technique);
// "roi", "neighbour", "openlist", "exact"; throws Error for another name.
ClearanceTechnique clearanceTechniqueNamed(const std::string& name);

// A setting that cannot work, naming it as the command line does ("range", "axis-scale",
// "ignore-below", "ignore-above"; "range/axis-scale" when it is their ratio).
class ClearanceSettingsError : public Error {
 public:
  ClearanceSettingsError(std::string setting, const std::string& message) : Error(message), setting_(std::move(setting)) {}
  const std::string& setting() const { return setting_; }

 private:
  std::string setting_;
};

// The voxel layers (z indices) whose voxels may be obstacles: [low, high], either end open.
struct ObstacleBand {
  bool hasLow = false, hasHigh = false;
  int32_t low = 0, high = 0;
  bool contains(int64_t z) const { return !(hasLow && z < low) && !(hasHigh && z > high); }
};

struct ClearanceOptions {
  double range = 5.0;                 // metres, at least 1e-6
  ClearanceTechnique technique = ClearanceTechnique::Exact;
  bool unknownFree = false;           // unobserved voxels are free instead of obstacles
  // Each axis' offsets are multiplied by this, in (0, 100]: a distance is
  // sqrt((sx dx)^2 + (sy dy)^2 + (sz dz)^2). A scale below 1 stretches the range along that
  // axis (obstacles are looked for range / scale away) and shrinks the distances to them; it
  // does not make an axis' obstacles matter less (a floor 1 m below is 0.2 m away at z scale
  // 0.2). To leave the floor or the ceiling out, use ignoreBelow / ignoreAbove.
  glm::dvec3 axisScale{1.0, 1.0, 1.0};
  // Metres: voxels whose centre z is below ignoreBelow or above ignoreAbove are never
  // obstacles (occupied or unobserved), so the floor or the ceiling does not count.
  std::optional<double> ignoreBelow{}, ignoreAbove{};

  // Throws ClearanceSettingsError naming the setting when a value cannot work for `model`
  // (a range whose padding passes the block limit names that limit).
  void validate(const OccupancyModel& model) const;
  // Padding per axis, in voxels: ceil(range / (resolution * scale)), computed in double
  // precision; throws ClearanceSettingsError past maxPadding (so a tiny scale is an error,
  // never an overflow).
  glm::ivec3 padding(const OccupancyModel& model) const;
  // The largest padding (voxels per axis) a block allows: (kMaxBlockEdge - region size) / 2.
  static int maxPadding(const OccupancyModel& model);
  // The voxel layers whose voxels may be obstacles (ignoreBelow / ignoreAbove as z indices:
  // a voxel's centre is (z + 0.5) * resolution).
  ObstacleBand band(const OccupancyModel& model) const;
  // The settings the layer's values depend on, as text: a map records it
  // (OccupancyMap::derivedSettings, saved in the map file) to know when all is stale and to
  // show what the layer holds. parseSettings reads it back (nullopt for other text).
  std::string fingerprint() const;
  static std::optional<ClearanceOptions> parseSettings(const std::string& text);
  // In words: "range 5 m, exact technique, unknown space an obstacle, axis scale 1 1 1".
  std::string describe() const;
};

// A map's clearance settings in words ("" when it has no clearance layer; "computed with
// settings that were not recorded" when the layer predates their recording).
std::string clearanceSettingsInWords(const MapLayout& layout, const std::string& recorded);
std::string clearanceSettingsInWords(const OccupancyMap& map);

// The layer (kClearanceLayer: always known, so a map file with clearance loads with no call first).
LayerId clearanceLayer();

// Whether a voxel value is an obstacle under `options` (its height aside: ObstacleBand).
inline bool isObstacle(const OccupancyMap& map, float value, const ClearanceOptions& options) {
  if (!isObserved(value)) return !options.unknownFree;
  return value >= map.model().thresholdValue();
}

// The regions within the range of `key` (their keys, the map's or not): what a region's
// clearance depends on.
std::vector<RegionKey> regionsWithinRange(const RegionKey& key, const OccupancyModel& model, const ClearanceOptions& options);

// Incremental updates. A region's clearance is out of date when it was never computed with
// these settings, or when its obstacles or those of a region within the range changed since:
// a voxel crossed into or out of the obstacle class (Region::occupiedSetStamp with unknown
// space free, Region::freeSetStamp otherwise; the integrators report crossings), or a region
// within range was dropped. Log-odds that move within their class change nothing here. The
// computations below record what they computed (OccupancyMap::markDerived).
std::vector<RegionKey> clearanceDirtyRegions(const OccupancyMap& map, const ClearanceOptions& options);
// Called by the computations before they start: the map's clearance layer, and when the
// settings differ from those recorded, every region marked out of date.
void prepareClearance(OccupancyMap& map, const ClearanceOptions& options);

struct ClearanceStats {
  uint64_t regions = 0;  // regions computed (an update: those out of date, clearanceDirtyRegions)
  double seconds = 0.0;  // wall time of the computation
  uint64_t batches = 0;  // GPU: batches of target regions
  uint64_t cacheRegions = 0;  // GPU: regions the region cache held (grown to one target's neighbourhood)
  // Mapper::computeClearance on a map with a TSDF: voxels whose clearance the surface's
  // sub-voxel distance lowered (refineClearanceFromTsdf, voxen/tsdf/tsdf_occupancy.hpp).
  uint64_t subVoxelRefined = 0;
};

// Called as the work goes: regions done so far of the total.
using ClearanceProgress = std::function<void(uint64_t done, uint64_t total)>;

// The CPU reference: an exact separable squared-distance transform (Felzenszwalb and
// Huttenlocher's lower envelope of parabolas, one axis after another) over each target
// region's block padded by the range. Adds the clearance layer to the map when missing.
// `targets` empty: every region of the map.
// The technique is ignored (the map records the settings as the exact technique's).
ClearanceStats computeClearanceCpu(OccupancyMap& map, const ClearanceOptions& options,
                                   std::span<const RegionKey> targets = {}, const ClearanceProgress& progress = {});
// Only the regions out of date (clearanceDirtyRegions); none computed when none is.
ClearanceStats updateClearanceCpu(OccupancyMap& map, const ClearanceOptions& options, const ClearanceProgress& progress = {});

}  // namespace voxen

#pragma once
// A computed clearance layer against a reference's (the CPU's exact transform), voxel by
// voxel over the reference's regions: what the tests, `voxen bench clearance` and
// `voxen check` measure. The exact GPU technique must give the reference's bits; the
// propagation techniques (ROI, neighbour, open list) are held to ClearanceBounds.
#include <cstdint>
#include <string>

#include "voxen/map/map.hpp"

namespace voxen {

struct ClearanceComparison {
  uint64_t voxels = 0;          // every voxel of the reference's regions
  uint64_t sameBits = 0;        // of them, with the reference's bits
  uint64_t noneMismatches = 0;  // one finds an obstacle within range and the other does not
  uint64_t inRange = 0;         // both find one: the voxels the errors below are over
  uint64_t withinOneVoxel = 0;  // of those, at most one voxel edge from the reference
  // Of those, nearer than the reference by more than 1e-5 m: a propagated obstacle is a
  // real one, so a propagation technique is never nearer than the exact distance.
  uint64_t nearer = 0;
  double maxError = 0.0, sumError = 0.0;  // metres, over inRange
  double meanError() const { return inRange ? sumError / double(inRange) : 0.0; }
  double withinOneVoxelFraction() const { return inRange ? double(withinOneVoxel) / double(inRange) : 1.0; }
};

// Throws Error when a reference region is missing from `computed` or either lacks the
// clearance layer.
ClearanceComparison compareClearance(const OccupancyMap& reference, const OccupancyMap& computed);

// The propagation techniques' stated bounds (measured: every voxel within one voxel of
// exact, the largest error 0.07 m at 0.25 m voxels): never nearer, at least 99 % within one
// voxel, none more than two voxels off, and at most 0.1 % disagreeing on whether an
// obstacle is within range.
struct ClearanceBounds {
  double minWithinOneVoxel = 0.99;
  double maxErrorVoxels = 2.0;
  double maxNoneMismatchFraction = 0.001;
};
// Which bound `c` breaks for voxels of `resolution` metres, in words ("" when none).
std::string propagationShortfall(const ClearanceComparison& c, double resolution, const ClearanceBounds& bounds = {});

}  // namespace voxen

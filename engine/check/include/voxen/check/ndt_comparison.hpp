#pragma once
// An NDT map compared with the CPU reference fed the same batches in the same (two-phase)
// order. The GPU applies each voxel's free-space updates in ray order and folds its samples
// in input order, as the reference does, but with the device's exp, log and sqrt (and
// multiply-adds a shader compiler may fuse), so the last bits of a voxel's occupancy and
// covariance (and, rarely, a clamp or a Gaussian's reset) may differ from the reference's:
// NDT maps are held to stated tolerances, not to equal bits. The sample sums are integers.
#include <cstdint>
#include <string>

#include "voxen/map/map.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace voxen {

struct NdtComparison {
  NdtMode mode = NdtMode::Off;
  uint64_t observed = 0;         // voxels observed in either map
  uint64_t sameClass = 0;        // of them, classified alike
  uint64_t sameCounts = 0;       // NDT-TM: of them, with the same hit and miss counts
  uint64_t withSamples = 0;      // voxels with samples in the reference
  uint64_t sameMean = 0;         // of them, with the same sample sums and count
  uint64_t closeCovariance = 0;  // of those, covariance within 1e-4 of its largest entry
  // The stated tolerances: at least 99.5 % of the observed voxels classified alike (and, for
  // NDT-TM, with the same counts), 99.9 % of the sampled voxels with the same mean, and
  // 99.9 % of those with a close covariance.
  bool withinTolerances() const;
  // Which tolerance is not met, in words ("" when all are).
  std::string shortfall() const;
};

// Throws Error when the maps' grids differ or the reference has no NDT layers; a region the
// candidate lacks counts as unobserved there.
NdtComparison compareNdtMaps(const OccupancyMap& reference, const OccupancyMap& candidate);

}  // namespace voxen

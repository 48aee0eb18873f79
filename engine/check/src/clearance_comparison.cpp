#include "voxen/check/clearance_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "voxen/clearance/clearance.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string keyText(const RegionKey& key) {
  return "(" + std::to_string(key.x) + ", " + std::to_string(key.y) + ", " + std::to_string(key.z) + ")";
}

}  // namespace

ClearanceComparison compareClearance(const OccupancyMap& reference, const OccupancyMap& computed) {
  const LayerId layer = clearanceLayer();
  if (!reference.layout().has(layer) || !computed.layout().has(layer))
    throw Error("compareClearance: both maps need the clearance layer");
  const double res = reference.model().resolution;
  ClearanceComparison c;
  for (const auto& [key, region] : reference.regions()) {
    const Region* other = computed.findRegion(key);
    if (!other) throw Error("compareClearance: region " + keyText(key) + " is missing from the computed map");
    const auto want = region.values<float>(layer);
    const auto have = other->values<float>(layer);
    for (size_t i = 0; i < want.size(); ++i) {
      ++c.voxels;
      c.sameBits += std::memcmp(&want[i], &have[i], sizeof(float)) == 0;
      if ((want[i] < 0) != (have[i] < 0)) {
        ++c.noneMismatches;
        continue;
      }
      if (want[i] < 0) continue;
      ++c.inRange;
      const double err = std::abs(double(have[i]) - double(want[i]));
      c.maxError = std::max(c.maxError, err);
      c.sumError += err;
      c.withinOneVoxel += err <= res * 1.000001;
      c.nearer += have[i] < want[i] - 1e-5f;
    }
  }
  return c;
}

std::string propagationShortfall(const ClearanceComparison& c, double resolution, const ClearanceBounds& bounds) {
  std::string out;
  auto add = [&](bool met, const std::string& what) {
    if (!met) out += (out.empty() ? "" : "; ") + what;
  };
  add(c.nearer == 0, std::to_string(c.nearer) + " voxels nearer than the exact distance");
  add(c.withinOneVoxelFraction() >= bounds.minWithinOneVoxel,
      "fewer than " + shortNumber(bounds.minWithinOneVoxel * 100) + " % within one voxel");
  add(c.maxError <= bounds.maxErrorVoxels * resolution,
      "largest error " + shortNumber(c.maxError) + " m, over " + shortNumber(bounds.maxErrorVoxels) + " voxels");
  add(double(c.noneMismatches) <= bounds.maxNoneMismatchFraction * double(c.inRange),
      std::to_string(c.noneMismatches) + " voxels disagree on whether an obstacle is within range");
  return out;
}

}  // namespace voxen

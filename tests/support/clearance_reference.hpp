#pragma once
// Clearance for the tests: a brute-force exact reference (every voxel within the padding
// box, in double precision) and hand-built maps.
#include <cmath>
#include <vector>

#include "voxen/clearance/clearance.hpp"

namespace vt::clearance {

using namespace voxen;

// The clearance of every voxel of region `key` (x fastest), by checking every voxel within
// the padding box.
inline std::vector<double> bruteForceClearance(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options) {
  const int n = map.regionSize();
  const glm::ivec3 pad = options.padding(map.model());
  const double res = map.model().resolution;
  std::vector<double> out(size_t(n) * n * n);
  // The obstacles of the padded block, once, as a dense mask.
  const glm::ivec3 origin = glm::ivec3(key.x, key.y, key.z) * n - pad;
  const glm::ivec3 size = glm::ivec3(n) + 2 * pad;
  std::vector<uint8_t> obstacle(size_t(size.x) * size.y * size.z);
  auto at = [&](int x, int y, int z) { return size_t(x) + size_t(size.x) * (size_t(y) + size_t(size.y) * size_t(z)); };
  for (int z = 0; z < size.z; ++z)
    for (int y = 0; y < size.y; ++y)
      for (int x = 0; x < size.x; ++x)
        obstacle[at(x, y, z)] = isObstacle(map, map.value({origin.x + x, origin.y + y, origin.z + z}), options);
  // Every voxel: every offset of the padding box.
  double step[3];
  for (int a = 0; a < 3; ++a) step[a] = res * options.axisScale[a];
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        double best = INFINITY;
        for (int dz = -pad.z; dz <= pad.z; ++dz)
          for (int dy = -pad.y; dy <= pad.y; ++dy)
            for (int dx = -pad.x; dx <= pad.x; ++dx) {
              if (!obstacle[at(x + pad.x + dx, y + pad.y + dy, z + pad.z + dz)]) continue;
              const double ex = dx * step[0], ey = dy * step[1], ez = dz * step[2];
              best = std::min(best, ex * ex + ey * ey + ez * ez);
            }
        const double d = std::sqrt(best);
        out[size_t(x + n * (y + n * z))] = d <= options.range ? d : double(kNoObstacleInRange);
      }
  return out;
}

// How a computed clearance layer compares with the brute force. Voxels whose exact distance
// lies within `band` of the range may fall on either side of it (float rounding).
struct ClearanceError {
  uint64_t voxels = 0, withinOneVoxel = 0, rangeMismatches = 0;
  double maxError = 0.0, sumError = 0.0;
  double meanError() const { return voxels ? sumError / double(voxels) : 0.0; }
};

inline ClearanceError compareWithBruteForce(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options,
                                            double band = 1e-4) {
  ClearanceError e;
  const std::vector<double> exact = bruteForceClearance(map, key, options);
  const std::span<const float> got = map.findRegion(key)->values<float>(clearanceLayer());
  const double res = map.model().resolution;
  for (size_t i = 0; i < exact.size(); ++i) {
    ++e.voxels;
    const double want = exact[i], have = got[i];
    const bool wantNone = want < 0, haveNone = have < 0;
    if (wantNone != haveNone) {
      const double d = wantNone ? have : want;
      if (std::abs(d - options.range) > band) ++e.rangeMismatches;
      continue;
    }
    const double err = wantNone ? 0.0 : std::abs(have - want);
    e.maxError = std::max(e.maxError, err);
    e.sumError += err;
    e.withinOneVoxel += err <= res * 1.000001;
  }
  return e;
}

// A map whose regions in [lo, hi] (region keys) are observed free everywhere.
inline OccupancyMap freeMap(double resolution, RegionKey lo, RegionKey hi) {
  OccupancyModel model;
  model.resolution = resolution;
  OccupancyMap map(model);
  for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y)
      for (int x = lo.x; x <= hi.x; ++x) {
        Region& r = map.region({x, y, z});
        for (float& v : r.occupancy()) v = model.clampMin;
      }
  return map;
}

inline void setOccupied(OccupancyMap& map, const VoxelCoord& v) {
  map.region(map.regionOf(v)).occupancy()[map.localIndex(v)] = map.model().clampMax;
}

}  // namespace vt::clearance

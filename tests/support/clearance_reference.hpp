#pragma once
// Clearance for the tests: a brute-force exact reference (every voxel within the padding
// box, or a list of the only obstacles, in double precision) and hand-built maps.
#include <cmath>
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/ext/vector_int3_sized.hpp>

#include "voxen/clearance/clearance.hpp"

namespace vt::clearance {

using namespace voxen;

// Whether map voxel v is an obstacle under `options`, by the definitions alone: outside the
// obstacle band never; past the int32 voxel range (no map holds it) unobserved.
inline bool obstacleAt(const OccupancyMap& map, const glm::i64vec3& v, const ClearanceOptions& options) {
  if (!options.band(map.model()).contains(v.z)) return false;
  for (int a = 0; a < 3; ++a)
    if (v[a] < INT32_MIN || v[a] > INT32_MAX) return !options.unknownFree;
  return isObstacle(map, map.value({int32_t(v.x), int32_t(v.y), int32_t(v.z)}), options);
}

// The clearance of every voxel of region `key` (x fastest), by checking every voxel within
// the padding box (64-bit coordinates: a region at either end of the voxel range too).
inline std::vector<double> bruteForceClearance(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options) {
  const int n = map.regionSize();
  const glm::ivec3 pad = options.padding(map.model());
  const double res = map.model().resolution;
  std::vector<double> out(size_t(n) * n * n);
  // The obstacles of the padded block, once, as a dense mask.
  const glm::i64vec3 origin = glm::i64vec3(key.x, key.y, key.z) * int64_t(n) - glm::i64vec3(pad);
  const glm::ivec3 size = glm::ivec3(n) + 2 * pad;
  std::vector<uint8_t> obstacle(size_t(size.x) * size.y * size.z);
  auto at = [&](int x, int y, int z) { return size_t(x) + size_t(size.x) * (size_t(y) + size_t(size.y) * size_t(z)); };
  for (int z = 0; z < size.z; ++z)
    for (int y = 0; y < size.y; ++y)
      for (int x = 0; x < size.x; ++x) obstacle[at(x, y, z)] = obstacleAt(map, origin + glm::i64vec3(x, y, z), options);
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

// The same from a list of the only obstacles (map voxels) when unknown space is free and
// the map has no other occupied voxel: for ranges whose padding box is too large to search
// voxel by voxel. An obstacle counts within the padding box, as the transform's block.
inline std::vector<double> bruteForceClearance(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options,
                                               const std::vector<VoxelCoord>& obstacles) {
  const int n = map.regionSize();
  const glm::ivec3 pad = options.padding(map.model());
  const double res = map.model().resolution;
  std::vector<double> out(size_t(n) * n * n);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const glm::i64vec3 v = glm::i64vec3(key.x, key.y, key.z) * int64_t(n) + glm::i64vec3(x, y, z);
        double best = INFINITY;
        for (const VoxelCoord& o : obstacles) {
          if (!options.band(map.model()).contains(o.z)) continue;
          const glm::i64vec3 d = glm::i64vec3(o.x, o.y, o.z) - v;
          if (std::abs(d.x) > pad.x || std::abs(d.y) > pad.y || std::abs(d.z) > pad.z) continue;
          double s = 0.0;
          for (int a = 0; a < 3; ++a) s += (double(d[a]) * res * options.axisScale[a]) * (double(d[a]) * res * options.axisScale[a]);
          best = std::min(best, s);
        }
        const double dist = std::sqrt(best);
        out[size_t(x + n * (y + n * z))] = dist <= options.range ? dist : double(kNoObstacleInRange);
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

inline ClearanceError compareWith(const std::vector<double>& exact, const OccupancyMap& map, const RegionKey& key,
                                  const ClearanceOptions& options, double band = 1e-4) {
  ClearanceError e;
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

inline ClearanceError compareWithBruteForce(const OccupancyMap& map, const RegionKey& key, const ClearanceOptions& options,
                                            double band = 1e-4) {
  return compareWith(bruteForceClearance(map, key, options), map, key, options, band);
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

// Free regions along `axis` out to 8 regions either way, obstacles near the end of a
// 240-voxel padding (and one past it, never seen), for the limit of the range.
inline OccupancyMap farObstacleMap(const OccupancyModel& model, int axis, std::vector<VoxelCoord>& obstacles) {
  OccupancyMap map(model);
  for (int k = -8; k <= 8; ++k) {
    RegionKey key{0, 0, 0};
    (&key.x)[axis] = k;
    for (float& v : map.region(key).occupancy()) v = model.clampMin;
  }
  for (int offset : {-240, -239, 255, 271, 300}) {
    VoxelCoord v{10, 20, 5};
    (&v.x)[axis] = offset;
    obstacles.push_back(v);
    setOccupied(map, v);
  }
  return map;
}

}  // namespace vt::clearance

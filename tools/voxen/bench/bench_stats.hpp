#pragma once
// What the map benchmarks compute alike: medians of repetitions, lists of seconds for the
// JSON, and how many observed voxels two maps classify alike.
#include <algorithm>
#include <vector>

#include "bench/bench_table.hpp"
#include "report/json_output.hpp"
#include "voxen/map/map.hpp"

namespace voxen::cli {

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

inline Json secondsList(const std::vector<double>& values) { return roundedList(values, 6); }

// Fraction of the voxels observed in either map that both classify alike.
inline double classAgreement(const OccupancyMap& a, const OccupancyMap& b) {
  uint64_t observed = 0, same = 0;
  for (const auto& [key, region] : a.regions())
    for (uint32_t i = 0; i < region.occupancy().size(); ++i) {
      const VoxelCoord v = a.voxelOf(key, i);
      const VoxelClass ca = a.classify(region.occupancy()[i]), cb = b.classify(v);
      if (ca == VoxelClass::Unobserved && cb == VoxelClass::Unobserved) continue;
      ++observed;
      same += ca == cb;
    }
  return observed ? double(same) / double(observed) : 1.0;
}

}  // namespace voxen::cli

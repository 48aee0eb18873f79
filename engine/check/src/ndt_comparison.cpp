#include "voxen/check/ndt_comparison.hpp"

#include <algorithm>
#include <cmath>

#include "voxen/host/error.hpp"

namespace voxen {

namespace {

double largestEntry(const glm::dmat3& m) {
  double largest = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) largest = std::max(largest, std::abs(m[c][r]));
  return largest;
}

bool atLeast(uint64_t part, double fraction, uint64_t whole) { return double(part) >= fraction * double(whole); }

}  // namespace

bool NdtComparison::withinTolerances() const { return shortfall().empty(); }

std::string NdtComparison::shortfall() const {
  std::string out;
  auto add = [&](bool met, const std::string& what) {
    if (!met) out += (out.empty() ? "" : "; ") + what;
  };
  add(atLeast(sameClass, 0.995, observed), "fewer than 99.5 % of the observed voxels classified alike");
  add(atLeast(sameMean, 0.999, withSamples), "fewer than 99.9 % of the sampled voxels with the same mean");
  add(atLeast(closeCovariance, 0.999, sameMean), "fewer than 99.9 % of those with a close covariance");
  if (mode == NdtMode::Tm) add(atLeast(sameCounts, 0.995, observed), "fewer than 99.5 % with the same hit and miss counts");
  return out;
}

NdtComparison compareNdtMaps(const OccupancyMap& reference, const OccupancyMap& candidate) {
  if (reference.model().resolution != candidate.model().resolution || reference.regionSize() != candidate.regionSize())
    throw Error("compareNdtMaps: the maps' grids differ");
  NdtComparison c;
  c.mode = ndtModeOf(reference.layout());
  if (c.mode == NdtMode::Off || ndtModeOf(candidate.layout()) != c.mode)
    throw Error("compareNdtMaps: the maps do not both have the NDT layers (" + reference.layout().names() + " and " +
                candidate.layout().names() + ")");
  const LayerId covarianceLayer = ndtCovarianceLayer();
  const Region empty = candidate.makeRegion({});
  for (const auto& [key, rc] : reference.regions()) {
    const Region* found = candidate.findRegion(key);
    const Region& rg = found ? *found : empty;
    const auto covC = rc.values<gpu::NdtCovariance>(covarianceLayer), covG = rg.values<gpu::NdtCovariance>(covarianceLayer);
    for (size_t i = 0; i < rc.occupancy().size(); ++i) {
      if (!isObserved(rc.occupancy()[i]) && !isObserved(rg.occupancy()[i])) continue;
      ++c.observed;
      c.sameClass += reference.classify(rc.occupancy()[i]) == candidate.classify(rg.occupancy()[i]);
      if (c.mode == NdtMode::Tm) c.sameCounts += rc.hitMiss()[i] == rg.hitMiss()[i];
      if (rc.mean()[i].count == 0) continue;
      ++c.withSamples;
      if (!(rc.mean()[i] == rg.mean()[i])) continue;
      ++c.sameMean;
      const glm::dmat3 a = ndtCovarianceMatrix(covC[i]), b = ndtCovarianceMatrix(covG[i]);
      c.closeCovariance += largestEntry(a - b) <= 1e-4 * largestEntry(a) + 1e-9;
    }
  }
  // Voxels only the candidate observed.
  for (const auto& [key, rg] : candidate.regions()) {
    if (reference.findRegion(key)) continue;
    for (float v : rg.occupancy()) c.observed += isObserved(v);
  }
  return c;
}

}  // namespace voxen

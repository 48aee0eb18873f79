#include "voxen/occupancy/ndt.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/geometric.hpp>

#include "voxen/gpu/occupancy/ndt_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/builtin_layers.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/map.hpp"
#include "voxen/occupancy/ndt_params.hpp"

namespace voxen {

const char* ndtModeName(NdtMode mode) {
  switch (mode) {
    case NdtMode::Off: return "off";
    case NdtMode::Om: return "om";
    case NdtMode::Tm: return "tm";
  }
  return "?";
}

void NdtModel::validate() const {
  // Each message names the field (SettingError), so that a program can name its own option.
  auto check = [](bool ok, const char* field, const char* words, const std::string& range, double value) {
    if (!ok)
      throw SettingError(SettingError::Kind::Invalid, std::string("NdtModel::") + field, words,
                         "NDT model: {} must be " + range + ", got " + formatNumber(value));
  };
  check(sensorNoise > 0.0 && sensorNoise <= 100.0, "sensorNoise", "sensor noise", "in (0, 100] metres", sensorNoise);
  check(adaptationRate >= 0.0 && adaptationRate <= 1.0, "adaptationRate", "adaptation rate", "in [0, 1]", adaptationRate);
  check(sampleThreshold >= 1, "sampleThreshold", "sample threshold", "at least 1", sampleThreshold);
  check(resetProbability > 0.0 && resetProbability < 1.0, "resetProbability", "reset probability", "in (0, 1)",
        resetProbability);
  check(initialDeviation > 0.0 && initialDeviation <= 10.0, "initialDeviation", "initial deviation", "in (0, 10] voxels",
        initialDeviation);
  check(foldLimit >= 1 && foldLimit <= 32768, "foldLimit", "fold limit", "from 1 to 32768 samples", foldLimit);
}

// The types are the map module's (voxen/map/builtin_layers.hpp), so that a map file with NDT
// layers loads in any process; the GPU structures must have the sizes they declare.
static_assert(sizeof(gpu::NdtCovariance) == detail::kNdtCovarianceBytes);
static_assert(sizeof(gpu::NdtIntensity) == detail::kNdtIntensityBytes);

LayerId ndtCovarianceLayer() { return kNdtCovarianceLayer; }
LayerId ndtIntensityLayer() { return kNdtIntensityLayer; }
void registerNdtLayers() {}

MapLayout ndtLayout(NdtMode mode, MapLayout base) {
  if (mode == NdtMode::Off) return base;
  base.add(kVoxelMeanLayer).add(ndtCovarianceLayer());
  if (mode == NdtMode::Tm) base.add(kHitMissLayer).add(ndtIntensityLayer());
  return base;
}

NdtMode ndtModeOf(const MapLayout& layout) {
  if (!layout.has(ndtCovarianceLayer()) || !layout.has(kVoxelMeanLayer)) return NdtMode::Off;
  return layout.has(ndtIntensityLayer()) && layout.has(kHitMissLayer) ? NdtMode::Tm : NdtMode::Om;
}

glm::dmat3 ndtCovarianceMatrix(const gpu::NdtCovariance& c) {
  glm::dmat3 s(0.0);  // glm: [column][row]
  s[0][0] = c.s00, s[0][1] = c.s10, s[1][1] = c.s11, s[0][2] = c.s20, s[1][2] = c.s21, s[2][2] = c.s22;
  return s * glm::transpose(s);
}

std::string ndtRecordedSettings(const NdtModel& model) {
  // Shortest text that reads back as the same double.
  const auto number = [](double v) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, v).ptr;
    return std::string(text, end);
  };
  return std::string("mode=") + ndtModeName(model.mode) + " initial_deviation=" + number(model.initialDeviation) +
         " sensor_noise=" + number(model.sensorNoise) + " adaptation_rate=" + number(model.adaptationRate) +
         " sample_threshold=" + std::to_string(model.sampleThreshold) + " reset_probability=" + number(model.resetProbability) +
         " reset_samples=" + std::to_string(model.resetSamples);
}

void recordNdtSettings(OccupancyMap& map, const NdtModel& model) {
  if (model.mode == NdtMode::Off || !map.layout().has(ndtCovarianceLayer())) return;
  const std::string text = ndtRecordedSettings(model);
  const std::string& recorded = map.derivedSettings(ndtCovarianceLayer());
  map.setDerivedSettings(ndtCovarianceLayer(), recorded.empty() || recorded == text ? text : kNdtSettingsMixed);
}

namespace {

// sqrt of the largest eigenvalue of P = S S^T: the largest singular value of S, by power
// iteration on P (symmetric positive semi-definite; 30 steps are plenty for a summary).
double largestDeviation(const gpu::NdtCovariance& c) {
  const glm::dmat3 p = ndtCovarianceMatrix(c);
  glm::dvec3 v(1.0, 0.7, 0.4);
  double lambda = 0.0;
  for (int i = 0; i < 30; ++i) {
    const glm::dvec3 w = p * v;
    const double norm = glm::length(w);
    if (!(norm > 0.0)) return 0.0;
    lambda = glm::dot(v, w) / glm::dot(v, v);
    v = w / norm;
  }
  return std::sqrt(std::max(lambda, 0.0));
}

}  // namespace

NdtSummary ndtSummary(const OccupancyMap& map, uint32_t sampleThreshold) {
  NdtSummary summary;
  if (ndtModeOf(map.layout()) == NdtMode::Off) return summary;
  const LayerId covariance = ndtCovarianceLayer();
  std::vector<double> extents;
  for (const auto& [key, region] : map.regions()) {
    const auto mean = region.mean();
    const auto cov = region.values<gpu::NdtCovariance>(covariance);
    for (size_t i = 0; i < mean.size(); ++i) {
      if (mean[i].count == 0 || !(cov[i].s00 > 0.0f)) continue;
      ++summary.gaussians;
      if (mean[i].count < sampleThreshold) continue;
      ++summary.aboveThreshold;
      extents.push_back(largestDeviation(cov[i]));
    }
  }
  if (!extents.empty()) {
    auto at = [&](double q) {
      const size_t k = std::min(extents.size() - 1, size_t(q * double(extents.size() - 1) + 0.5));
      std::nth_element(extents.begin(), extents.begin() + ptrdiff_t(k), extents.end());
      return extents[k];
    };
    summary.medianExtent = at(0.5);
    summary.p95Extent = at(0.95);
  }
  return summary;
}

gpu::NdtParams ndtParams(const NdtModel& model, const OccupancyModel& occupancy) {
  model.validate();
  gpu::NdtParams p{};
  p.resolution = float(occupancy.resolution);
  p.sensorNoise = float(model.sensorNoise);
  p.eta = float(0.5 * model.adaptationRate);
  p.resetValue = OccupancyModel::logOdds(float(model.resetProbability));
  p.initialDeviation = float(model.initialDeviation * occupancy.resolution);
  p.sampleThreshold = model.sampleThreshold;
  p.resetSamples = model.resetSamples;
  p.covarianceLayer = ndtCovarianceLayer().index();
  p.intensityLayer = model.mode == NdtMode::Tm ? ndtIntensityLayer().index() : 0u;
  p.foldLimit = model.foldLimit;
  return p;
}

void checkNdtMap(const NdtModel& model, const MapLayout& layout) {
  if (model.mode == NdtMode::Off) return;
  const MapLayout needed = ndtLayout(model.mode, layout);
  bool complete = true;
  for (LayerId id : needed.ids()) complete = complete && layout.has(id);
  if (!complete)
    throw Error(std::string("NDT-") + (model.mode == NdtMode::Tm ? "TM" : "OM") + " needs the map layers " +
                needed.names() + "; the map has " + layout.names());
}

}  // namespace voxen

#include "voxen/occupancy/ndt.hpp"

#include <cmath>

#include "voxen/gpu/occupancy/ndt_shared.h"
#include "voxen/host/error.hpp"
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
  auto fail = [](const std::string& field, const std::string& why) { throw Error("NDT model: " + field + " " + why); };
  if (!(sensorNoise > 0.0 && sensorNoise <= 100.0)) fail("sensor noise", "must be in (0, 100] metres");
  if (!(adaptationRate >= 0.0 && adaptationRate <= 1.0)) fail("adaptation rate", "must be in [0, 1]");
  if (sampleThreshold < 1) fail("sample threshold", "must be at least 1");
  if (!(resetProbability > 0.0 && resetProbability < 1.0)) fail("reset probability", "must be in (0, 1)");
  if (!(initialDeviation > 0.0 && initialDeviation <= 10.0)) fail("initial deviation", "must be in (0, 10] voxels");
  if (foldLimit < 1 || foldLimit > 32768) fail("fold limit", "must be between 1 and 32768 samples");
}

namespace {

LayerId registerOnce(const char* name, uint32_t bytes, const char* description) {
  LayerType type;
  type.name = name;
  type.bytesPerVoxel = bytes;
  type.elementBytes = 4;
  type.version = 1;
  type.description = description;
  return registerLayer(type);
}

}  // namespace

LayerId ndtCovarianceLayer() {
  static const LayerId id = registerOnce("ndt_covariance", sizeof(gpu::NdtCovariance),
                                         "NDT covariance square root S (P = S S^T), lower triangle row by row, metres");
  return id;
}

LayerId ndtIntensityLayer() {
  static const LayerId id =
      registerOnce("ndt_intensity", sizeof(gpu::NdtIntensity), "NDT-TM intensity mean and variance of the returns");
  return id;
}

void registerNdtLayers() {
  ndtCovarianceLayer();
  ndtIntensityLayer();
}

MapLayout ndtLayout(NdtMode mode, MapLayout base) {
  if (mode == NdtMode::Off) return base;
  base.add(kVoxelMeanLayer).add(ndtCovarianceLayer());
  if (mode == NdtMode::Tm) base.add(kHitMissLayer).add(ndtIntensityLayer());
  return base;
}

NdtMode ndtModeOf(const MapLayout& layout) {
  registerNdtLayers();
  if (!layout.has(ndtCovarianceLayer()) || !layout.has(kVoxelMeanLayer)) return NdtMode::Off;
  return layout.has(ndtIntensityLayer()) && layout.has(kHitMissLayer) ? NdtMode::Tm : NdtMode::Om;
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
  p.covarianceLayer = ndtCovarianceLayer();
  p.intensityLayer = model.mode == NdtMode::Tm ? ndtIntensityLayer() : 0u;
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

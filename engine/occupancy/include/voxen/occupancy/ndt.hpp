#pragma once
// NDT-OM and NDT-TM (normal distributions transform occupancy maps; Saarinen et al., "3D
// normal distributions transform occupancy maps", 2013, and OHM's NDT mode): every voxel
// with samples keeps a Gaussian (the voxel mean and a covariance in square-root form), and a
// ray lowers a voxel's occupancy only as much as it really passes through that Gaussian, so
// surfaces seen at grazing angles are not carved away. NDT-TM adds per-voxel intensity
// statistics and hit/miss counts by OHM's rule.
//
// NDT is a mode of the occupancy integrators (IntegrationOptions::ndt): they share the walk,
// the batches, the region cache and the map file. The formulas are written once, for the CPU
// reference and the shaders, in shaders/occupancy/ndt_shared.h. The GPU applies a batch in
// two-phase order (every free-space update, then the samples folded voxel by voxel in input
// order by one invocation per distinct sample voxel); the CPU reference offers both orders.
#include <glm/mat3x3.hpp>

#include <cstdint>
#include <string>

#include "voxen/gpu/occupancy/ndt_shared.h"
#include "voxen/map/layer.hpp"
#include "voxen/occupancy/ndt_model.hpp"

namespace voxen {

// The NDT layers (kNdtCovarianceLayer, kNdtIntensityLayer: always known, so map files that
// hold them load with no registration call).
LayerId ndtCovarianceLayer();  // "ndt_covariance": gpu::NdtCovariance, 24 bytes
LayerId ndtIntensityLayer();   // "ndt_intensity": gpu::NdtIntensity, 8 bytes
// Does nothing: the NDT layers are known from the start. Kept for programs written when a
// map with NDT layers loaded only after this call.
[[deprecated("the NDT layers are always known; this call is not needed")]] void registerNdtLayers();

// The layout a map needs for `mode`: base plus the voxel mean and the covariance, and for
// NDT-TM the intensity and hit/miss counts.
MapLayout ndtLayout(NdtMode mode, MapLayout base = MapLayout());
// The NDT mode a map's layers support (Tm when it has the TM layers too, Off without a
// covariance layer).
NdtMode ndtModeOf(const MapLayout& layout);

// A voxel's covariance P = S S^T (metres squared) from its square-root form as the
// ndt_covariance layer holds it.
glm::dmat3 ndtCovarianceMatrix(const gpu::NdtCovariance& squareRoot);

class OccupancyMap;

// The model settings (all but foldLimit) as the integrators record them in a map, as the
// ndt_covariance layer's derived settings: "mode=om initial_deviation=0.1 sensor_noise=0.05
// ...", so that `voxen merge` knows what the Gaussians were made with (the prior a merged
// covariance takes out and puts back) and refuses maps made with other settings.
std::string ndtRecordedSettings(const NdtModel& model);
// Records ndtRecordedSettings in `map` (the integrators call it when they start). A map continued
// with other settings than it was made with is marked "mixed" (its Gaussians mix two priors).
void recordNdtSettings(OccupancyMap& map, const NdtModel& model);

// What a map's Gaussians look like (voxen info): voxels with one, those with at least
// `sampleThreshold` samples (whose Gaussian shapes free space), and the spread of their
// 1-sigma extent (the square root of the covariance's largest eigenvalue), in metres.
struct NdtSummary {
  uint64_t gaussians = 0;
  uint64_t aboveThreshold = 0;
  double medianExtent = 0.0, p95Extent = 0.0;
};
NdtSummary ndtSummary(const OccupancyMap& map, uint32_t sampleThreshold = NdtModel().sampleThreshold);

}  // namespace voxen

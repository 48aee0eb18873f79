#pragma once
// Per-layer rules for merging maps of the same model (`voxen merge`, voxen/store/map_merge.hpp):
// the voxel values of one region, as several independent maps hold them, combined into one.
//
// Every rule is symmetric in its inputs and gives the same bits whatever their order (float
// sums are taken in a canonical order), so that merging a and b equals merging b and a byte
// for byte. A region held by one input alone comes out unchanged.
//
// - occupancy (with occupancy_remainder): independent observations, so log-odds add;
//   unobserved (+inf) adds nothing, and a voxel every input left unobserved stays unobserved.
//   The sum is exact: each observed input contributes its occupancy as a 64-bit fixed-point
//   count of 2^-40 log-odds (the float scaled and rounded to nearest: deterministic) plus its
//   occupancy_remainder (0 for a map that was never merged), and the integer sum is rounded
//   to float and clamped to the model's clamp range once: that is the stored occupancy, which
//   every reader takes as it is. What the clamping and rounding left out (sum minus the
//   stored value in fixed point) is the output's occupancy_remainder, which a later merge adds
//   back. So merges associate bit for bit: (a + b) + c, a + (b + c) and a + b + c hold the
//   same occupancy and remainder in every voxel. A voxel one input observed keeps its bits.
//   Where the layout has no occupancy_remainder (mergeLayer, a fused store), the remainder is
//   only dropped.
// - hit_miss, traversal: counts and lengths add, saturating at the type's largest value.
// - voxel_mean: pooled statistics: counts add and position sums add (exact integers). Past
//   what u32 holds, count and sums are scaled down together so that the mean is kept (to
//   1/1024 voxel) and every sum stays within 1023 x count.
// - touch_time: the latest.
// - tsdf: the weighted mean of the distances (integer sums, rounded to nearest, halves away
//   from zero), the weights summed (saturating at u32).
// - tsdf_colour: per channel the mean of the colours weighted by their colour weights (integer
//   sums, rounded to nearest, halves up), the weights summed (saturating at u32).
// - ndt_covariance, ndt_intensity (NDT-OM, NDT-TM): pooled sample moments, read with the
//   voxel means (mergeRegions; see NdtMergeModel and mergeNdtVoxel).
// Layers with no rule (clearance, derived from occupancy; opaque layers) are named by
// mergeRuleProblem().
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "voxen/gpu/map/ndt_layers.h"
#include "voxen/map/layer.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// Why layer `id` cannot be merged ("ndt_covariance: ..."), or nullopt when it has a rule.
std::optional<std::string> mergeRuleProblem(LayerId id);

// What the NDT rules need of the model every input's Gaussians were made with (mergeMaps
// reads it from the maps' recorded NDT settings and refuses inputs that differ).
struct NdtMergeModel {
  // Metres, as the integrators use it (float(initialDeviation x resolution)): the factor S a
  // voxel's Gaussian starts with at its first sample.
  float initialDeviation = 0.0f;
};

// The NDT settings a map records (the ndt_covariance layer's derived settings, written by
// voxen::recordNdtSettings: "key=value" fields), split into fields in their order; "mixed"
// (kNdtSettingsMixed) for a map continued with other settings than it was made with.
inline constexpr const char* kNdtSettingsMixed = "mixed";
std::vector<std::pair<std::string, std::string>> ndtSettingsFields(const std::string& text);
// The merge model of recorded settings (a map of resolution `resolution`); Error when they
// lack initial_deviation or its value is not a positive number.
NdtMergeModel ndtMergeModel(const std::string& settings, double resolution);

// One voxel of an NDT map: the layers its Gaussian is made of (intensity zero in NDT-OM).
struct NdtVoxelStats {
  VoxelMean mean;
  gpu::NdtCovariance covariance{};
  gpu::NdtIntensity intensity{};
};

// The merged covariance and intensity of one voxel (its mean is merged by the voxel_mean
// rule). The reference (ndt_shared.h) keeps, for the n samples z_i since a voxel's (re)start,
//   P = (M2 + d0^2 I) / n,   M2 = sum (z_i - mean)(z_i - mean)^T,  d0 = initialDeviation,
// (the first sample leaves S = d0 I; each later one folds in with weights n/(n+1)), and the
// intensity variance is M2 / n with no prior. Inputs are independent sample sets, so their
// M2 pool by Chan et al.'s formula, M2 = sum M2_k + sum n_k (m_k - m)(m_k - m)^T, with M2_k
// = n_k P_k - d0^2 I: the merged P is the one a run over all the samples (in any order)
// gives, up to float rounding of the stored factors, and S = chol(P) in double, rounded to
// float. Inputs without samples add nothing; one input with samples comes out bit for bit;
// an input with samples but no Gaussian (s00 <= 0: its means were made without NDT) makes the
// merged voxel have none either (the integrators restart it at its next sample), keeping
// that input's factor. Symmetric: the inputs are pooled in a canonical order.
void mergeNdtVoxel(std::span<const NdtVoxelStats> inputs, const NdtMergeModel& ndt, double resolution,
                   gpu::NdtCovariance& covariance, gpu::NdtIntensity& intensity);

// Merges one layer of one region: `inputs` are the layer's arrays of every input holding the
// region (each region-size-cubed voxels of the layer's bytes per voxel), `out` receives the
// merged array (the same size). Throws Error for a layer without a rule, for the NDT layers
// (their rule reads the voxel means too: mergeRegions), for occupancy_remainder (merged with
// occupancy: mergeRegions; mergeLayer's occupancy takes no remainder and drops the output's)
// or arrays of the wrong size.
void mergeLayer(LayerId id, const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs,
                std::span<std::byte> out);

// Every layer of `inputs` (regions with the same key and the layout `layout`) merged into
// one region. `ndt` is needed when the layout has the NDT layers (an Error otherwise). An
// input may lack occupancy_remainder (a map never merged: remainder 0); the output has it
// when `layout` does.
Region mergeRegions(const MapLayout& layout, const OccupancyModel& model, std::span<const Region* const> inputs,
                    const std::optional<NdtMergeModel>& ndt = std::nullopt);

}  // namespace voxen

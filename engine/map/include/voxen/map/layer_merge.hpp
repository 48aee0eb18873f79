#pragma once
// Per-layer rules for merging maps of the same model (`voxen merge`, voxen/store/map_merge.hpp):
// the voxel values of one region, as several independent maps hold them, combined into one.
//
// Every rule is symmetric in its inputs and gives the same bits whatever their order (float
// sums are taken in a canonical order), so that merging a and b equals merging b and a byte
// for byte. A region held by one input alone comes out unchanged.
//
// - occupancy: independent observations, so log-odds add; unobserved (+inf) adds nothing, and
//   a voxel every input left unobserved stays unobserved. The finite values are summed in
//   double in ascending order, then clamped to the model's clamp range once.
// - hit_miss, traversal: counts and lengths add, saturating at the type's largest value.
// - voxel_mean: pooled statistics: counts add and position sums add (exact integers). Past
//   what u32 holds, count and sums are scaled down together so that the mean is kept (to
//   1/1024 voxel) and every sum stays within 1023 x count.
// - touch_time: the latest.
// Layers with no rule (clearance, derived from occupancy; the NDT layers; opaque layers)
// are named by mergeRuleProblem().
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "voxen/map/layer.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// Why layer `id` cannot be merged ("ndt_covariance: ..."), or nullopt when it has a rule.
std::optional<std::string> mergeRuleProblem(LayerId id);

// Merges one layer of one region: `inputs` are the layer's arrays of every input holding the
// region (each region-size-cubed voxels of the layer's bytes per voxel), `out` receives the
// merged array (the same size). Throws Error for a layer without a rule or arrays of the
// wrong size.
void mergeLayer(LayerId id, const OccupancyModel& model, std::span<const std::span<const std::byte>> inputs,
                std::span<std::byte> out);

// Every layer of `inputs` (regions with the same key and the layout `layout`) merged into
// one region.
Region mergeRegions(const MapLayout& layout, const OccupancyModel& model, std::span<const Region* const> inputs);

}  // namespace voxen

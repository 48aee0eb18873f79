#pragma once
// Merging maps of several runs, robots or sessions into one (`voxen merge`): maps (.vxm),
// region stores or PostgreSQL stores (a postgresql:// URL: its fused map), any mix, of the same
// resolution, region size, model and layers, merged
// region by region with the per-layer rules of voxen/map/layer_merge.hpp.
//
// Memory: every input is read one region at a time (a map file through MapFileRegionReader,
// a store by MapStore::readRegion) and a store output is written in transactions of at
// most 32 MiB, so a merge into a store holds a few regions at once (plus every input's key
// list). A .vxm output is built whole in memory before it is saved (a map file is written in
// one piece), within MergeOptions::memoryBudgetBytes.
//
// The result does not depend on the order of the inputs: each layer's rule is symmetric and
// order independent, the output's layers are in id order and its time origin is the
// earliest input's. Nor, but for the NDT layers and voxel means past u32, on their grouping:
// occupancy is summed exactly (the output holds occupancy_remainder, what clamping and
// rounding left out of the stored occupancy, when an input holds it or two inputs share a
// region), so merging (a + b) with c, a with (b + c) and a, b, c at once give the same bytes.
// Clearance, derived from occupancy, is not merged: it is left out of the
// output (MergeResult::droppedLayers) with the settings it was computed with, for the caller
// to recompute it (`voxen merge` does, with the CPU reference).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "voxen/map/map_file.hpp"
#include "voxen/store/region_store.hpp"

namespace voxen {

struct MergeOptions {
  // Host bytes a .vxm output may take in memory (regions x bytes per region, checked before
  // any is merged); budgetHint ends that error.
  uint64_t memoryBudgetBytes = UINT64_MAX;
  std::string budgetHint;
  // Whether the output keeps occupancy_remainder (when an input has it or two inputs share a
  // region). Without it the map is smaller and reads the same (occupancy is unchanged), but a
  // later merge of it adds clamped, rounded values: merges no longer associate bit for bit.
  bool keepRemainder = true;
  MapSaveOptions mapOutput;        // a .vxm output
  RegionStoreOptions storeOutput;  // a store output
  // Called after every merged region with the count done and the total.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct MergeResult {
  uint64_t regions = 0;        // in the output
  uint64_t sharedRegions = 0;  // held by more than one input (merged voxel by voxel)
  MapLayout layout;            // the output's
  std::vector<std::string> droppedLayers;  // inputs' layers left out ("clearance")
  // The distinct settings the inputs' clearance was computed with (their derived settings,
  // sorted; "" for a layer that predates their recording), so that a caller can recompute
  // the layer on the output with the same settings.
  std::vector<std::string> clearanceSettings;
};

// Whether `output` is written as a map file (its name ends in .vxm) rather than a store, as
// `voxen convert` decides.
bool mergeOutputIsMapFile(const std::filesystem::path& output);

// Merges `inputs` (at least two) into `output`, replacing it only once the merged map is
// complete. Throws Error naming the two files and the values when the inputs differ in
// resolution, region size, model, layers or recorded NDT settings (the ndt_covariance layer's
// derived settings, which the NDT rule needs), naming the file when an NDT map does not
// record them, naming the layer when one has no merge rule (a layer unknown to this build),
// and naming both paths when two name the same file or URL; a URL is named without its
// password (redactedStoreName). The output is a file: a map file or an SQLite store.
MergeResult mergeMaps(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                      const MergeOptions& options = {});

}  // namespace voxen

#pragma once
// What `voxen clearance` and `voxen map --clearance` share: the clearance settings' flags,
// their refusals named by flag, and the up-front note when a technique's work explodes with
// the range (the GPU's memory comes from the Mapper).
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"
#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

namespace voxen::cli {

// The techniques, with what `voxen bench clearance` measured (medians, ms per region).
inline constexpr const char* kClearanceTechniqueHelp =
    "exact (the default): a separable squared-distance transform, exact and the fastest measured; roi: propagation "
    "inside each region, the padding's obstacles seeded onto its border (approximate); neighbour: propagation over the "
    "region padded by the range (approximate); openlist: a flood fill of a work list until it empties (approximate). "
    "Measured by voxen bench clearance (0.25 m, 32^3 regions) on lavapipe, 2 shared CPU cores, ms per region at 5 m "
    "and 15.5 m: exact 7.3 and 46, roi 40 and 55, openlist 29 and 928, neighbour 162 and 2136; the CPU reference "
    "(--cpu, one thread) 4.5 and 24, faster than any GPU technique on a CPU driver such as lavapipe";

// --range, --technique, --unknown-free, --axis-scale X Y Z (into `axisScale`), --ignore-below
// and --ignore-above, into `options`.
void addClearanceSettings(CLI::App& command, ClearanceOptions& options, std::vector<double>& axisScale);

// options.validate(model), its ClearanceSettingsError as a UsageError naming the flags
// ("--range/--axis-scale: ..."); `flags` renames settings whose flag is not "--" + the
// setting's name ({"range", "--clearance"}), or leaves out those the command lacks ("").
void validateClearanceSettings(const ClearanceOptions& options, const OccupancyModel& model,
                               const std::map<std::string, std::string>& flags = {});

// A note on stderr when the technique's work per region is many times the exact technique's
// at this range.
void warnIfSlow(const GpuClearance& clearance, const ClearanceOptions& options);

// One warning line on stderr when most free voxels' nearest obstacle lies straight below
// (voxen/clearance/floor_check.hpp): the field then shows the height above the floor, not the
// room a ground robot has; it suggests an --ignore-below just above the floor.
void warnIfFloorDominates(const OccupancyMap& map, const ClearanceOptions& options);

}  // namespace voxen::cli

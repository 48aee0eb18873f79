#pragma once
// Whether a clearance field mostly measures the height above the floor. Without
// --ignore-below the floor is an obstacle like any other: at 1 m above it nearly every free
// voxel's nearest obstacle is the floor, so a picture of the field at 1 m tops out near 1 m
// and the room's middle is one flat colour. A ground robot wants the floor left out.
//
// The check is cheap (one pass over the map, at most about a million clearances looked at:
// every n-th voxel of a larger map). The floor is the voxel layer with the most occupied
// voxels (the largest level surface a scan sees), unless the settings' ignore band leaves it
// out. A free voxel with a clearance c in range above it is capped by the floor when c is its
// height above the floor's voxels (k layers: k x resolution x axis scale z) within a voxel
// and a half: the floor, straight below or a little to the side, is its nearest obstacle. A
// layer of at least 100 such voxels is capped by the floor when none of them is farther from
// an obstacle than from the floor (the colour scale of its picture tops out at the height
// above the floor) and at least 20 of them and a fiftieth are capped.
#include <cstdint>
#include <optional>
#include <string>

#include "voxen/clearance/clearance.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

struct FloorDominance {
  uint64_t sampled = 0;    // free observed voxels above the floor looked at with a clearance in range (> 0)
  uint64_t capped = 0;     // of them, those whose clearance is their height above the floor
  int32_t floorLayer = 0;  // the voxel layer with the most occupied voxels
  // The voxel layers capped by the floor: how many, the lowest and highest, and the largest
  // share of capped voxels among them.
  uint32_t layers = 0;
  int32_t firstLayer = 0, lastLayer = 0;
  double largestShare = 0.0;
  bool dominates() const { return layers > 0; }
};

// Over the whole map, or over voxel layer `layer` only (a slice). The map must hold its
// clearance layer, computed with `options`.
FloorDominance floorDominance(const OccupancyMap& map, const ClearanceOptions& options, std::optional<int32_t> layer = std::nullopt);

// The warning's words (no prefix, no newline): where the floor caps the clearance, how
// much, the floor's layer and the ignore-below height that would leave it out, written after
// `ignoreBelowSetting` (the caller's name for it: "--ignore-below " on the command line,
// "ignore_below=" in Python; the library names no flag).
std::string floorWarning(const FloorDominance& floor, double resolution, const std::string& ignoreBelowSetting);

}  // namespace voxen

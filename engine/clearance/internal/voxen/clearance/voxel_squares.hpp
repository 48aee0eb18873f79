#pragma once
// The exact technique in voxel squares: where one scale applies to every axis (voxels are
// cubes, the default), the squared distance between two voxel centres is an integer number
// of squared voxel edges, dx^2 + dy^2 + dz^2. The transform then runs in integers (no
// rounding, no division: the lower envelope compares parabola intersections by
// cross-multiplication), and a voxel's clearance in metres comes from a table with one entry
// per squared distance within the range, made here once per computation. The CPU reference
// (cpu_clearance.cpp) and the GPU passes (shaders/clearance, CLEARANCE_VOXEL_SQUARES=1) read
// the same table, so they agree bit for bit on any device, with or without float64.
#include <cstdint>
#include <optional>
#include <vector>

#include "voxen/clearance/clearance.hpp"

namespace voxen {

struct VoxelSquares {
  // The largest squared voxel distance within the range: D is within it when the clearance
  // metres[D] is at most the range (as a float). Below 2^24 (the padding is at most 240
  // voxels), so exact as a float too.
  uint32_t maxSquared = 0;
  // metres[D] for D = 0 .. maxSquared: float(step * sqrt(D)), step the voxel edge times the
  // scale, sqrt and product in double (the float nearest the double result).
  std::vector<float> metres;
};

// The table for `options` on `model`; nullopt where the axes have different scales (the
// exact technique then weighs each axis' squares in float, metres^2).
std::optional<VoxelSquares> voxelSquares(const OccupancyModel& model, const ClearanceOptions& options);

}  // namespace voxen

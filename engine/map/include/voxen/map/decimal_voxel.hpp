#pragma once
// Which voxel a coordinate a person typed falls in, decided on the decimals as written.
//
// A height such as 0.3 m is not a double: the nearest double is 0.29999999999999998890, and
// at 0.1 m per voxel (0.1000000000000000055) floor(0.3 / 0.1) is 2, the 0.2-0.3 m layer, and
// 1.2 / 0.1 lands in voxel 11. Here both numbers are taken as the shortest decimals that
// read back as the same doubles ("0.3", "0.1": what was typed, for any decimal of up to 15
// significant digits) and compared exactly as fractions, so 0.3 m is on the boundary between
// voxels 2 and 3 and belongs to voxel 3, the voxel [k, k + 1) x resolution that holds it.
// Voxel centres ((k + 0.5) x resolution) are compared the same way. Where the fraction's
// integers would not fit in 128 bits (exponents 20 decades apart) the double quotient decides.
//
// Every height and coordinate the user gives goes through these: slices' --z, clearance's
// --ignore-below/--ignore-above, query points and export boxes.
#include <cstdint>

namespace voxen {

// The voxel index k whose [k, k + 1) x resolution holds `metres` as written.
int64_t voxelIndexOfDecimal(double metres, double resolution);

// The smallest k whose centre (k + 0.5) x resolution is at or above `metres`, and the largest
// at or below it.
int64_t firstVoxelCentredAtOrAbove(double metres, double resolution);
int64_t lastVoxelCentredAtOrBelow(double metres, double resolution);

}  // namespace voxen

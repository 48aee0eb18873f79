#pragma once
// The tool's option validators: the shared number checks (voxen_apps/number_checks.hpp,
// which the samples use too) and the tool's own limits on map coordinates.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen_apps/number_checks.hpp"

namespace voxen::cli {

using apps::commaSeparatedNumbers;
using apps::finiteNumber;
using apps::HighEnd;
using apps::integerIn;
using apps::LowEnd;
using apps::naturalNumber;
using apps::numberIn;
using apps::numberList;

// Map coordinates the tool accepts, in metres: ten thousand kilometres either way, more
// than any survey, far less than what makes a double lose the voxel.
inline constexpr double kMaxMapMetres = 1e7;
// The largest voxel index (either sign) a coordinate may become: int32 with room for the
// region arithmetic and "index + 1" that follow.
inline constexpr double kMaxVoxelIndex = double(int64_t(1) << 30);
// Empty when `metres` is a voxel index the map can hold at `resolution`; else why not, for a
// message after the flag's name ("--z: ...").
std::string voxelIndexProblem(double metres, double resolution);

}  // namespace voxen::cli

#pragma once
// CLI11 validators with the tool's strict rules for numbers: the whole word must be the
// number ("12px" is an error, not 12) and lie in range. The message says what was expected
// and what was given; CLI11 puts the flag's name in front ("--hit: expected ...").
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace voxen::cli {

CLI::Validator integerIn(int64_t lo, int64_t hi);
// Any whole number from 0 to 2^64 - 1 (random seeds).
CLI::Validator naturalNumber();

enum class LowEnd { Closed, Open };  // whether `lo` itself is allowed
// A finite number in [lo, hi] (or (lo, hi]); `unit` names what it measures in the message.
CLI::Validator numberIn(double lo, double hi, const std::string& unit, LowEnd low = LowEnd::Closed);
// Any finite number.
CLI::Validator finiteNumber();

// Exactly `count` finite numbers separated by commas ("0,-12,8"), kept as text by the option
// and read with numberList once validated.
CLI::Validator commaSeparatedNumbers(size_t count);
// The same, each number in [lo, hi] of `unit`.
CLI::Validator commaSeparatedNumbers(size_t count, double lo, double hi, const std::string& unit);

// Map coordinates the tool accepts, in metres: ten thousand kilometres either way, more
// than any survey, far less than what makes a double lose the voxel.
inline constexpr double kMaxMapMetres = 1e7;
// The largest voxel index (either sign) a coordinate may become: int32 with room for the
// region arithmetic and "index + 1" that follow.
inline constexpr double kMaxVoxelIndex = double(int64_t(1) << 30);
// Empty when `metres` is a voxel index the map can hold at `resolution`; else why not, for a
// message after the flag's name ("--z: ...").
std::string voxelIndexProblem(double metres, double resolution);
std::vector<double> numberList(const std::string& text);

}  // namespace voxen::cli

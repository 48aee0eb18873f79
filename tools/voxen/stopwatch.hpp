#pragma once
// Wall-clock timing for the benchmark commands.
#include <chrono>

namespace voxen::cli {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace voxen::cli

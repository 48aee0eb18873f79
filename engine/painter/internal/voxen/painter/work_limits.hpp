#pragma once
// Mirrors VOXEN_MAX_ITERATIONS_PER_INVOCATION in shaders/common/work_range.glsl: the most
// loop iterations one invocation runs (lavapipe stops loops silently at 65,535).
#include <cstdint>

namespace voxen::detail {
constexpr uint32_t kMaxIterationsPerInvocation = 32768;
}

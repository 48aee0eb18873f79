#pragma once
// The most loop iterations one shader invocation runs (lavapipe stops loops silently at
// 65,535), for the painter's CPU references: defined once, for C++ and GLSL, in
// shaders/common/work_limits.h.
#include "voxen/gpu/common/work_limits.h"

namespace voxen::detail {
using gpu::kMaxIterationsPerInvocation;
}

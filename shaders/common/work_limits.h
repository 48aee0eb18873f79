// The per-invocation work budget, one definition for the shaders (work_range.glsl, the
// painter's loops) and for the host code that sizes their launches and its CPU references.
// Lavapipe stops every loop of an invocation silently after 65,535 iterations in total
// (docs/architecture.md): a shader never runs more than kMaxIterationsPerInvocation, kept well below
// that cap so that a loop with a few extra steps stays safe.
#ifndef VOXEN_COMMON_WORK_LIMITS_H
#define VOXEN_COMMON_WORK_LIMITS_H

#include "shared.h"

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kMaxIterationsPerInvocation, 32768u)

VOXEN_SHARED_END

#endif

// Push constants of shaders/selftest/exact_math_probe.comp, one definition for the shader
// and its users in C++ (tests/host/test_exact_math.cpp, `voxen check`'s exact-math row).
#ifndef VOXEN_SELFTEST_EXACT_MATH_PROBE_PUSH_H
#define VOXEN_SELFTEST_EXACT_MATH_PROBE_PUSH_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

struct ExactMathProbePush {  // selftest/exact_math_probe.comp
  VOXEN_ADDRESS operands;    // uvec2 per element: the bits of a and b
  VOXEN_ADDRESS results;     // uvec2 per element: the bits of exactDiv(a, b) and exactSqrt(a)
  uint count;
};
VOXEN_SHARED_ASSERT(offsetof(ExactMathProbePush, count) == 16)

VOXEN_SHARED_END

#endif

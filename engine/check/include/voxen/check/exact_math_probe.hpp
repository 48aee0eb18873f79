#pragma once
// shaders/common/exact_math.glsl on a device, bit for bit against the CPU's float division
// and std::sqrt (IEEE binary32, correctly rounded, subnormals kept): the `voxen check` row
// "exact division and square root" and tests/host/test_exact_math.cpp. Whatever flavour the
// scheduler's shader library picks (plain or float64) is what is probed.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace voxen {

class Scheduler;

// Operand pairs (the bits of a and b): the classic hard cases (zeros, infinities, NaN,
// subnormals, powers of two, the extremes, exponent gaps that overflow or underflow),
// then `randomCount` pairs drawn from `seed` in equal shares of: any bit pattern, any
// finite float, subnormal operands, operands near powers of two, quotients near overflow
// and underflow, quotients near a midpoint between two floats, and roots near midpoints.
std::vector<std::array<uint32_t, 2>> exactMathOperands(size_t randomCount, uint64_t seed);

struct ExactMathProbeResult {
  size_t cases = 0;
  size_t divisionMismatches = 0;
  size_t rootMismatches = 0;
  std::vector<std::string> firstMismatches;  // at most 8, "a / b: device 0x... cpu 0x..."
};

// Which build of the probe runs. The two emulations matter in the float64 flavour only: its
// widening to double and narrowing to float flush subnormals to zero, as NVIDIA's driver
// does, so a device that keeps subnormals (lavapipe) tests the guard that sends subnormals
// to the integer path (shaders/common/exact_math.glsl); without that guard it must fail.
enum class ExactMathProbeBuild {
  AsShipped,               // exact_math.glsl as every engine kernel includes it
  FlushEmulated,           // + VOXEN_EXACT_MATH_EMULATE_FLUSH: must stay exact
  FlushEmulatedUnguarded,  // + VOXEN_EXACT_MATH_NO_GUARD: must fail in the float64 flavour
};

// Evaluates exactDiv(a, b) and exactSqrt(a) for every pair on the device
// (selftest/exact_math_probe.comp) and compares the bits with the CPU's (any NaN equals any
// NaN). `breakReference` perturbs the CPU's quotients by one ULP, so the probe must fail.
ExactMathProbeResult probeExactMath(Scheduler& scheduler, const std::vector<std::array<uint32_t, 2>>& operands,
                                    bool breakReference = false,
                                    ExactMathProbeBuild build = ExactMathProbeBuild::AsShipped);

}  // namespace voxen

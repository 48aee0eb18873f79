// shaders/common/exact_math.glsl is correctly rounded in both flavours: exactDiv and
// exactSqrt on the device equal the CPU's float / and std::sqrt bit for bit, on the hard
// cases and four million random operand pairs (any bits, subnormals, powers of two, overflow
// and underflow, quotients and roots near a midpoint). The plain flavour (a device without
// shaderFloat64, as VOXEN_NO_FLOAT64=1 makes one) computes with integers and an estimate,
// never relying on the driver's division, root or denormals; the float64 one in doubles.
#include <catch2/catch.hpp>

#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "voxen/check/exact_math_probe.hpp"

namespace {

void requireExact(voxen::Scheduler& scheduler, size_t randomCount, uint64_t seed) {
  const voxen::ExactMathProbeResult probe = voxen::probeExactMath(scheduler, voxen::exactMathOperands(randomCount, seed));
  for (const std::string& m : probe.firstMismatches) UNSCOPED_INFO(m);
  CHECK(probe.cases > randomCount);
  CHECK(probe.divisionMismatches == 0);
  CHECK(probe.rootMismatches == 0);
}

}  // namespace

TEST_CASE("exactDiv and exactSqrt equal the CPU's bit for bit in the plain flavour (no float64)", "[shaders][exact-math][gpu]") {
  vt::PlainFlavourGpu plain;
  REQUIRE_FALSE(plain.library.float64());
  voxen::Scheduler& scheduler = plain.scheduler;
  requireExact(scheduler, size_t(4) << 20, 37);
  requireExact(scheduler, size_t(1) << 20, 2026);
}

TEST_CASE("exactDiv and exactSqrt equal the CPU's bit for bit in the device's own flavour", "[shaders][exact-math][gpu]") {
  requireExact(vt::gpu().scheduler, size_t(1) << 20, 11);
}

TEST_CASE("The exact-math probe fails when the CPU's quotients are one ULP off", "[shaders][exact-math][gpu]") {
  const voxen::ExactMathProbeResult probe = voxen::probeExactMath(vt::gpu().scheduler, voxen::exactMathOperands(4096, 5), true);
  CHECK(probe.divisionMismatches > 3000);
  CHECK(probe.rootMismatches == 0);
  CHECK_FALSE(probe.firstMismatches.empty());
}

// NVIDIA's driver flushes float subnormals when it widens them to double (an H200's `voxen
// check`, 2026-11-30: 0 / 2^-149 gave NaN). The float64 flavour's guard sends subnormal
// operands and quotients to the integer path; here a probe build that flushes as that driver
// does stays exact with the guard and is wrong without it (so the emulation bites).
TEST_CASE("The float64 flavour stays exact on a driver that flushes subnormals", "[shaders][exact-math][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  REQUIRE(scheduler.library().float64());  // lavapipe has shaderFloat64, so its own flavour is the float64 one
  const auto operands = voxen::exactMathOperands(size_t(1) << 20, 41);
  const voxen::ExactMathProbeResult guarded =
      voxen::probeExactMath(scheduler, operands, false, voxen::ExactMathProbeBuild::FlushEmulated);
  for (const std::string& m : guarded.firstMismatches) UNSCOPED_INFO(m);
  CHECK(guarded.divisionMismatches == 0);
  CHECK(guarded.rootMismatches == 0);
  const voxen::ExactMathProbeResult unguarded =
      voxen::probeExactMath(scheduler, operands, false, voxen::ExactMathProbeBuild::FlushEmulatedUnguarded);
  CHECK(unguarded.divisionMismatches > 10000);
  CHECK(unguarded.rootMismatches > 1000);
}

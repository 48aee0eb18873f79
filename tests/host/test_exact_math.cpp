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

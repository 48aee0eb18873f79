// The engine core: the scheduler's derived barriers, subgroup operations, bounded loops and
// the staging ring, each against a CPU reference (the self-test's checks), and exact_math.glsl's
// division and square root in the flavour the device runs.
#include "check_row.hpp"
#include "voxen/check/exact_math_probe.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/selftest/self_test.hpp"

namespace voxen {

void checkCore(CheckContext& context) {
  SelfTestOptions options;
  options.withLoopCapProbe = false;  // a fact about the driver: reported with the device
  options.breakReferences = context.breakReferences();
  for (const SelfTestCheck& check : runSelfTest(context.scheduler, options))
    runRow(context, "core", check.name, [&](RowResult& row) {
      row.timeTaken(check.wallMs / 1e3);
      row.note(check.detail);
      row.require(check.passed, check.detail);
    });
  // exact_math.glsl in the flavour this device runs (plain without shaderFloat64 or with
  // VOXEN_NO_FLOAT64=1): every GPU map and picture that divides or takes roots relies on it.
  runRow(context, "core", "exact division and square root", [&](RowResult& row) {
    const bool float64 = context.scheduler.library().float64();
    const ExactMathProbeResult probe = probeExactMath(
        context.scheduler, exactMathOperands(context.sized<size_t>(1u << 20, 1u << 22), 37), context.breakReferences());
    row.figure("cases", double(probe.cases), "{} divisions and roots");
    row.note(float64 ? "float64 flavour" : "plain flavour (no float64)");
    row.figure("mismatches", double(probe.divisionMismatches + probe.rootMismatches), "{} differ from the CPU");
    std::string first;
    for (const std::string& m : probe.firstMismatches) first += (first.empty() ? "" : "; ") + m;
    row.require(probe.divisionMismatches == 0 && probe.rootMismatches == 0,
                std::to_string(probe.divisionMismatches) + " quotients and " + std::to_string(probe.rootMismatches) +
                    " roots differ from the CPU's: " + first);
  });
}

}  // namespace voxen

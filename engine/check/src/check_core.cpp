// The engine core: the scheduler's derived barriers, subgroup operations, bounded loops and
// the staging ring, each against a CPU reference (the self-test's checks).
#include "check_row.hpp"
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
}

}  // namespace voxen

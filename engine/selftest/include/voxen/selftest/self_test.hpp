#pragma once
// A GPU self-test: small passes chained through the scheduler, each checked against a CPU
// reference. It is what `voxen selftest` runs to prove a device works with Voxen.
#include <cstdint>
#include <string>
#include <vector>

namespace voxen {

class Scheduler;

struct SelfTestCheck {
  std::string name;
  bool passed = false;
  std::string detail;
  double wallMs = 0.0;
};

struct SelfTestOptions {
  // The loop cap probe (a fact about the driver rather than a comparison) as a check too.
  bool withLoopCapProbe = true;
  // Test-only (voxen check's switch): every check's CPU reference is perturbed, so each
  // comparison must fail.
  bool breakReferences = false;
};

// Runs every check; never throws for a wrong result (it is reported as failed).
std::vector<SelfTestCheck> runSelfTest(Scheduler& scheduler, const SelfTestOptions& options = {});

// How many iterations of a loop one invocation really runs when asked for `requested`:
// lavapipe stops every loop of an invocation after a fixed count (docs/architecture.md).
struct LoopCapProbe {
  uint32_t requested = 0;
  uint32_t executed = 0;
  bool finished = false;  // the code after the loop ran
  bool truncated() const { return executed < requested; }
};
LoopCapProbe probeLoopCap(Scheduler& scheduler, uint32_t requested = 100000);

}  // namespace voxen

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

// Runs every check; never throws for a wrong result (it is reported as failed).
std::vector<SelfTestCheck> runSelfTest(Scheduler& scheduler);

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

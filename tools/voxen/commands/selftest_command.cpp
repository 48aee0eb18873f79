// `voxen selftest`: proves the device runs Voxen's passes correctly (GPU against CPU).
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "voxen/selftest/self_test.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen::cli {

namespace {

int selftest(const CommonOptions& options) {
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::printf("voxen selftest on %s (%s)\n", device.info().name.c_str(), device.info().driverName.c_str());
  const auto checks = runSelfTest(scheduler);
  int failed = 0;
  for (const auto& check : checks) {
    std::printf("  %-4s %-46s %9.1f ms  %s\n", check.passed ? "PASS" : "FAIL", check.name.c_str(), check.wallMs,
                check.detail.c_str());
    failed += !check.passed;
  }
  if (options.profile) {
    std::printf("\nGPU time per pass:\n");
    scheduler.profile().print(std::cout);
    std::printf("\nmemory held by Voxen now:\n%s", memoryReport(device).c_str());
  }
  std::printf("%zu passed, %d failed\n", checks.size() - failed, failed);
  return failed ? 1 : 0;
}

CommandRun setupSelftest(CLI::App&) { return &selftest; }  // no flags of its own

}  // namespace

static CommandRegistration registration{"selftest", "run GPU passes through the scheduler and check them against the CPU",
                                        &setupSelftest,
                                        Uses::Gpu | Uses::Profile};

}  // namespace voxen::cli

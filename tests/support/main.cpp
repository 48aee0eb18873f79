// voxen_tests' main: Catch2 with a listener that turns every validation message (warning or
// error) reported during a test case into a failure of that test case and of the process.
//
// The build runs this binary with --list-test-names-only and --list-tags after every link
// (tests/support/discover_catch_cases.cmake), and ctest then runs each case in a process of
// its own. Nothing here may create the Vulkan device before a test case asks vt::gpu() for
// it: listing stays instant, and cases without GPU work never pay for a device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "support/gpu_fixture.hpp"
#include "voxen/input/ros_bag_input.hpp"

namespace {

void report(const std::string& testCase, const std::vector<voxen::ValidationMessage>& messages) {
  std::cerr << "\n=== VALIDATION FAILURE in test case '" << testCase << "': " << messages.size()
            << " unexpected validation message(s)\n";
  for (const auto& message : messages) std::cerr << "  " << vt::describe(message) << "\n";
  std::cerr << "===\n";
}

class ValidationListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    const auto leftover = vt::validation().beginTestCase(info.name);
    if (!leftover.empty()) report("<between test cases, before '" + info.name + "'>", leftover);
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    // Work the test case recorded but did not wait for still belongs to it.
    vt::flushGpu();
    const auto messages = vt::validation().endTestCase();
    if (!messages.empty()) report(stats.testInfo.name, messages);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(ValidationListener)

int main(int argc, char** argv) {
  // The tests' pipelines go to a cache of their own, never the user's (~/.cache/voxen):
  // one folder shared by the test processes, which the cache's rename-over writes allow.
  const std::string pipelineCache = (std::filesystem::temp_directory_path() / "voxen-tests-pipeline-cache").string();
  ::setenv("VOXEN_PIPELINE_CACHE", pipelineCache.c_str(), 1);
#if VOXEN_HAVE_ROSBAG
  voxen::enableRosBagInput();  // voxen::rosbag: the bag tests read ROS 1 bags as the tool does
#endif
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  int result = session.run();

  vt::destroyGpu();
  const auto teardown = vt::validation().endTestCase();
  if (!teardown.empty()) report("<teardown of the shared device>", teardown);

  const auto& failed = vt::validation().failedTestCases();
  if (!failed.empty()) {
    std::cerr << "\nvoxen_tests: " << failed.size() << " test case(s) produced validation messages:\n";
    for (const auto& name : failed) std::cerr << "  " << name << "\n";
    if (result == 0) result = 1;
  }
  return result;
}

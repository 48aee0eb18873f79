#pragma once
// The device check behind `voxen check`: every subsystem run on the selected device, on
// generated data, and held to its CPU reference, one row per check with its figures and a
// verdict. Exactly where the result does not depend on the order the GPU's invocations run
// in (occupancy in both update orders, region discovery, the sorts and scans, exact
// clearance, the painter, box instances, culling); within stated tolerances where it does
// (NDT, traversal sums, the propagation clearance techniques, transform products). A
// failing check is a row with the reason, never an exception: the other checks still run.
//
//   Scheduler scheduler(device, library);
//   CheckReport report = runDeviceCheck(scheduler, {.scale = CheckScale::Quick});
//   for (const CheckRow& row : report.rows) std::printf("%s %s\n", row.passed ? "PASS" : "FAIL", row.name.c_str());
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace voxen {

class Scheduler;
struct DeviceInfo;

// Quick: sizes a CPU driver (lavapipe on two cores) runs in under three minutes, still past
// the limits each check is about (several batches, evicted regions, chunks, 65,535
// workgroups). Full: sizes for a real GPU (millions of rays, sorts of 2^24 pairs, a scan
// past 65,535 tiles, 1920 x 1080 frames).
enum class CheckScale { Quick, Full };

struct CheckFigure {
  std::string name;  // snake_case: the key in `voxen check --json`
  double value = 0.0;
};

struct CheckRow {
  std::string subsystem;  // one of checkSubsystems()
  std::string name;       // what was checked, in words
  bool passed = false;
  std::string summary;    // the figures in words, for the table
  std::vector<CheckFigure> figures;
  std::string failure;    // why it failed; empty when it passed
  double seconds = 0.0;   // wall time, the CPU reference included
};

// A device in words, as `voxen check` and `voxen bench all` name it: the host's words for
// its type (deviceTypeName) and Vulkan version (formatApiVersion), and its driver.
struct DeviceDescription {
  std::string name, type, driverName, driverInfo, apiVersion;
};

DeviceDescription describeDevice(const DeviceInfo& info);

// What the check ran with: the device and the limits the passes depend on.
struct CheckedDevice : DeviceDescription {
  uint32_t subgroupSize = 0;
  bool quadShuffle = false;  // subgroup shuffles of whole quads (a transform product variant)
  // Shaders divide and take roots in doubles, rounded to float (shaders/common/exact_math.glsl):
  // exactly rounded, as the CPU references are. Without it the driver's own float division.
  bool shaderFloat64 = false;
  uint32_t maxComputeWorkGroupCount[3] = {0, 0, 0};
  uint32_t maxComputeWorkGroupInvocations = 0;
  uint32_t maxPushConstantsSize = 0;
  uint64_t maxStorageBufferRange = 0;
  uint64_t maxMemoryAllocationSize = 0;
  uint64_t deviceLocalBytes = 0;  // the largest device-local heap
  float timestampPeriodNs = 0.0f;
  // Iterations after which the driver silently stops an invocation's loops (lavapipe:
  // 65,535), which every walk and retry loop must stay under; 0: none below 100,000.
  uint32_t loopCap = 0;
};

struct CheckOptions {
  CheckScale scale = CheckScale::Full;
  std::vector<std::string> subsystems;  // to run; empty: every one
  // Test-only: every check perturbs its CPU reference's result before comparing, so every
  // row must fail. Proves that each comparison can fail.
  bool breakReferences = false;
  std::function<void(const std::string& subsystem, const std::string& name)> onStart;  // progress
  std::function<void(const CheckRow&)> onRow;
};

struct CheckReport {
  CheckedDevice device;
  std::vector<CheckRow> rows;
  double seconds = 0.0;
  bool passed() const;
};

// "core", "occupancy", "primitives", "clearance", "transform", "painter", in the order run.
const std::vector<std::string>& checkSubsystems();

// Runs the checks on the scheduler's device. Throws Error only for options it cannot act
// on (an unknown subsystem name).
CheckReport runDeviceCheck(Scheduler& scheduler, const CheckOptions& options = {});

CheckedDevice describeCheckedDevice(Scheduler& scheduler);

}  // namespace voxen

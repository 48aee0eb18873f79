#include <algorithm>
#include <chrono>

#include "check_row.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/selftest/self_test.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"

namespace voxen {

bool CheckReport::passed() const {
  return !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const CheckRow& row) { return row.passed; });
}

const std::vector<std::string>& checkSubsystems() {
  static const std::vector<std::string> names{"core",  "occupancy", "primitives", "clearance", "heightmap",
                                              "tsdf", "query", "transform", "painter"};
  return names;
}

DeviceDescription describeDevice(const DeviceInfo& info) {
  return {.name = info.name,
          .type = deviceTypeName(info.type),
          .driverName = info.driverName,
          .driverInfo = info.driverInfo,
          .apiVersion = formatApiVersion(info.apiVersion)};
}

CheckedDevice describeCheckedDevice(Scheduler& scheduler) {
  const Device& device = scheduler.device();
  const DeviceInfo& info = device.info();
  CheckedDevice d;
  static_cast<DeviceDescription&>(d) = describeDevice(info);
  d.subgroupSize = info.subgroupSize;
  d.quadShuffle = supportsQuadShuffle(info);
  d.shaderFloat64 = info.capabilities.shaderFloat64;
  for (int i = 0; i < 3; ++i) d.maxComputeWorkGroupCount[i] = info.maxComputeWorkGroupCount[i];
  d.maxComputeWorkGroupInvocations = info.maxComputeWorkGroupInvocations;
  d.maxPushConstantsSize = info.maxPushConstantsSize;
  d.maxStorageBufferRange = info.maxStorageBufferRange;
  d.maxMemoryAllocationSize = info.maxMemoryAllocationSize;
  for (const HeapReport& heap : device.heapReport())
    if (heap.deviceLocal) d.deviceLocalBytes = std::max(d.deviceLocalBytes, heap.size);
  d.timestampPeriodNs = info.timestampPeriodNs;
  const LoopCapProbe probe = probeLoopCap(scheduler);
  d.loopCap = probe.truncated() ? probe.executed : 0;
  return d;
}

CheckReport runDeviceCheck(Scheduler& scheduler, const CheckOptions& options) {
  using Check = void (*)(CheckContext&);
  const std::vector<std::pair<std::string, Check>> checks{{"core", &checkCore},           {"occupancy", &checkOccupancy},
                                                          {"primitives", &checkPrimitives}, {"clearance", &checkClearance},
                                                          {"heightmap", &checkHeightmap},   {"tsdf", &checkTsdf},
                                                          {"query", &checkQuery},
                                                          {"transform", &checkTransform}, {"painter", &checkPainter}};
  for (const std::string& name : options.subsystems)
    if (std::none_of(checks.begin(), checks.end(), [&](const auto& check) { return check.first == name; }))
      throw Error("no subsystem '" + name + "' to check (core, occupancy, primitives, clearance, heightmap, tsdf, query, transform, painter)");
  CheckReport report;
  report.device = describeCheckedDevice(scheduler);
  const auto start = std::chrono::steady_clock::now();
  CheckContext context{scheduler, options, report.rows};
  for (const auto& [name, check] : checks) {
    const bool chosen = options.subsystems.empty() ||
                        std::find(options.subsystems.begin(), options.subsystems.end(), name) != options.subsystems.end();
    if (chosen) check(context);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace voxen

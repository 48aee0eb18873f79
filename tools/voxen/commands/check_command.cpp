// `voxen check`: every subsystem on the selected device against its CPU reference, one row
// per check with its figures and PASS or FAIL, and the device facts it ran with; exit
// status 1 when any check fails (voxen/check/device_check.hpp says what each compares).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "report/device_report.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "voxen/check/device_check.hpp"
#include "voxen/host/memory_stats.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen::cli {

namespace {

struct CheckArgs {
  bool quick = false;
  std::vector<std::string> only;
  bool breakReferences = false;
};

// The device's words (as bench all writes them), then the limits the checks ran with.
Json checkedDeviceJson(const CheckedDevice& d) {
  Json out = deviceJson(d);
  const Json limits = {
      {"subgroup_size", d.subgroupSize},
      {"quad_shuffle", d.quadShuffle},
      {"shader_float64", d.shaderFloat64},
      {"max_workgroup_count", {d.maxComputeWorkGroupCount[0], d.maxComputeWorkGroupCount[1], d.maxComputeWorkGroupCount[2]}},
      {"max_workgroup_invocations", d.maxComputeWorkGroupInvocations},
      {"max_push_constants_bytes", d.maxPushConstantsSize},
      {"max_storage_buffer_range_bytes", d.maxStorageBufferRange},
      {"max_memory_allocation_bytes", d.maxMemoryAllocationSize},
      {"device_local_bytes", d.deviceLocalBytes},
      {"timestamp_period_ns", floatValue(d.timestampPeriodNs)},
      {"loop_cap", d.loopCap}};
  for (const auto& [key, value] : limits.items()) out[key] = value;
  return out;
}

Json rowJson(const CheckRow& row) {
  Json figures = Json::object();
  for (const CheckFigure& f : row.figures) figures[f.name] = rounded(f.value, 9);
  return {{"subsystem", row.subsystem}, {"check", row.name},       {"passed", row.passed},     {"seconds", rounded(row.seconds, 3)},
          {"summary", row.summary},     {"figures", figures},      {"failure", row.failure}};
}

void printDevice(const CheckedDevice& d, bool quick) {
  std::printf("voxen check on %s (%s, %s, Vulkan %s), %s sizes\n", d.name.c_str(), d.type.c_str(), d.driverName.c_str(),
              d.apiVersion.c_str(), quick ? "quick" : "full");
  std::printf("  driver %s; subgroups of %u; quad shuffle %s; division and sqrt %s; workgroups at most %s x %s x %s of %u invocations;\n"
              "  storage buffer range %s, allocations up to %s, device-local heap %s; loops %s\n\n",
              d.driverInfo.c_str(), d.subgroupSize, d.quadShuffle ? "yes" : "no",
              d.shaderFloat64 ? "exact (float64)" : "the driver's (no float64)", withCommas(d.maxComputeWorkGroupCount[0]).c_str(),
              withCommas(d.maxComputeWorkGroupCount[1]).c_str(), withCommas(d.maxComputeWorkGroupCount[2]).c_str(),
              d.maxComputeWorkGroupInvocations, formatBytes(d.maxStorageBufferRange).c_str(),
              formatBytes(d.maxMemoryAllocationSize).c_str(), formatBytes(d.deviceLocalBytes).c_str(),
              d.loopCap ? ("stop after " + withCommas(d.loopCap) + " iterations per invocation").c_str() : "uncapped below 100,000");
}

void printRow(const CheckRow& row) {
  std::printf("%s  %-10s %s  (%.2f s)\n", row.passed ? "PASS" : "FAIL", row.subsystem.c_str(), row.name.c_str(), row.seconds);
  if (!row.summary.empty()) std::printf("      %s\n", row.summary.c_str());
  if (!row.passed) std::printf("      why: %s\n", row.failure.c_str());
  std::fflush(stdout);
}

int check(const CommonOptions& options, const CheckArgs& args) {
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  CheckOptions checkOptions;
  checkOptions.scale = args.quick ? CheckScale::Quick : CheckScale::Full;
  checkOptions.subsystems = args.only;
  checkOptions.breakReferences = args.breakReferences;
  if (!options.json) {
    printDevice(describeCheckedDevice(scheduler), args.quick);
    checkOptions.onRow = &printRow;
  } else {
    // Progress on stderr, so that stdout stays one JSON object.
    checkOptions.onRow = [](const CheckRow& row) {
      std::fprintf(stderr, "voxen check: %s %s: %s (%.2f s)\n", row.passed ? "PASS" : "FAIL", row.subsystem.c_str(),
                   row.name.c_str(), row.seconds);
    };
  }
  const CheckReport report = runDeviceCheck(scheduler, checkOptions);
  size_t failed = 0;
  for (const CheckRow& row : report.rows) failed += !row.passed;
  if (options.json) {
    Json rows = Json::array();
    for (const CheckRow& row : report.rows) rows.push_back(rowJson(row));
    printJson({{"device", checkedDeviceJson(report.device)},
               {"scale", args.quick ? "quick" : "full"},
               {"passed", report.passed()},
               {"checks", report.rows.size()},
               {"failed", failed},
               {"seconds", rounded(report.seconds, 2)},
               {"rows", rows}});
  } else {
    std::printf("\n%zu checks: %zu passed, %zu failed (%.1f s)\n", report.rows.size(), report.rows.size() - failed, failed,
                report.seconds);
  }
  return report.passed() ? 0 : 1;
}

CommandRun setupCheck(CLI::App& command) {
  auto args = std::make_shared<CheckArgs>();
  command.add_flag("--quick", args->quick,
                   "sizes a CPU driver runs in under three minutes (default: sizes for a real GPU), still past the limits "
                   "each check is about");
  command.add_option("--only", args->only, "check only this subsystem (repeat for several)")
      ->check(CLI::IsMember(checkSubsystems()))
      ->type_name("SUBSYSTEM");
  // Test-only: every check's CPU reference is perturbed, so every row must fail (the suite
  // proves with it that each comparison can fail). Hidden from --help.
  command.add_flag("--break-references", args->breakReferences)->group("");
  command.footer("Subsystems: core, occupancy, primitives, clearance, heightmap, query, transform, painter. Exit status 1 when a check "
                 "fails.");
  return [args](const CommonOptions& options) { return check(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "check", "every subsystem on this device against its CPU reference, PASS or FAIL per check, with the device's facts",
    &setupCheck, Uses::Gpu | Uses::Json};

}  // namespace voxen::cli

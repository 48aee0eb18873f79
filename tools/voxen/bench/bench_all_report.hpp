#pragma once
// What `voxen bench all` ran and how it reports it: the text table on stdout, the JSON file
// (everything: each size's whole child summary) and the markdown tables that BENCHMARKS.md
// takes as they are.
#include <string>
#include <vector>

#include "bench/bench_all_workloads.hpp"
#include "child_process.hpp"
#include "report/json_output.hpp"
#include "voxen/check/device_check.hpp"

namespace voxen::cli {

// One child run of a workload at one of its sizes.
struct SizeRun {
  size_t size = 0;         // index into Workload::sizes
  ChildResult child;
  Json summary;            // the child's --json summary; null when it gave none
  std::string outcome;     // "ok", "failed", "cut" (killed at its time limit), "memory" (refused by the memory budget)
  std::string message;     // what went wrong, for every outcome but ok
  int validationMessages = 0;
};

struct WorkloadState {
  const Workload* workload = nullptr;
  std::vector<SizeRun> runs;
  std::string status = "ok";  // ok; failed (a run failed); cut (its first size ran out of time)
  std::string message;        // why it failed or was cut
  std::string stopped;        // why it grew no further: "largest size", "budget", ...
  bool growing = true;        // may still try a larger size
  // The runs whose figures are reported: the largest that ran well, or every one that did
  // (Workload::reportEverySize); empty when none did.
  std::vector<const SizeRun*> reported() const;
  size_t nextSize() const;    // the size a next run would take (sizes.size() when none is left)
};

// The device in voxen check's words (describeDevice), and the host CPU.
struct DeviceSummary : DeviceDescription {
  std::string cpu;  // the host CPU's model and its hardware threads: the CPU reference's machine
};

struct BenchAllReport {
  DeviceSummary device;
  std::string command;  // the command line, as a user would type it
  std::string date;     // UTC, "2026-11-26 12:34 UTC"
  double budgetSeconds = 0, elapsedSeconds = 0;
  double firstPassSeconds = 0;  // every workload at its smallest size (run whatever the budget)
  std::vector<WorkloadState> workloads;
  bool failed() const;
};

std::string textReport(const BenchAllReport& report);
std::string markdownReport(const BenchAllReport& report);
Json jsonReport(const BenchAllReport& report);

// A value as the tables print it: three significant digits or so ("1234", "12.3", "0.0123").
std::string formatValue(double value);

}  // namespace voxen::cli

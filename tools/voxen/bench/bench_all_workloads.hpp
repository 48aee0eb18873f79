#pragma once
// The workloads `voxen bench all` runs: one row of a table each. A workload is a voxen bench
// command with fixed flags, the sizes it may run at (smallest first; bench all runs the
// first always and grows through the others while its budget allows), and how to read the
// figures of a run from the command's --json summary: each figure a row of the report, the
// Voxen GPU value beside the CPU reference measured in the same run. Adding a workload is
// adding an entry to benchAllWorkloads().
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "report/json_output.hpp"

namespace voxen::cli {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// One row of the report.
struct Figure {
  std::string what;            // the row's name in the table: "sequential, 0.1 m", "upload through staging ring"
  std::string unit;            // "Mrays/s", "ms/frame"
  double gpu = kNoValue;       // Voxen on the device; NaN: not measured
  double cpu = kNoValue;       // the CPU reference in the same run; NaN: none
  bool lowerIsBetter = false;  // times (ms/frame), not rates
  // How many times the CPU reference's time the GPU takes off (NaN without both values).
  double speedUp() const;
};

struct WorkloadSize {
  std::string label;              // "1,048,576 rays", "1920x1080"
  std::vector<std::string> args;  // the size's flags: {"--rays", "1048576"}
  double amount = 0;              // the work it stands for (rays, nodes, pixels): time grows with it
};

struct Workload {
  std::string section;  // "occupancy map"
  std::string name;     // "sequential order"
  std::vector<std::string> command;  // {"bench", "map", "--update-order", "sequential"}; --json is added
  std::vector<WorkloadSize> sizes;   // growing
  // The figures of one run, from the command's --json summary.
  std::function<std::vector<Figure>(const Json&)> figures;
  // The size a run reports (its JSON names it), e.g. "16 regions" for clearance; empty: the
  // size's label.
  std::function<std::string(const Json&)> sizeReported;
  // Every size that ran is reported (the painter at each resolution), not only the largest.
  bool reportEverySize = false;
  // Occupancy per lidar frame: its figures also make the lidar-frame table.
  bool lidarFrames = false;
  // The workload does no GPU work (recordings to rays): its figures are Voxen's host code
  // beside a host reference, so the reports put them under heads that say so, not under
  // "Voxen GPU" and "CPU reference".
  bool hostOnly = false;
  // "section / name" of a workload with the same sizes that this one never grows past, so
  // that their rows compare (the map layers follow the sequential map); empty: none.
  std::string grownNoFurtherThan;
};

std::vector<Workload> benchAllWorkloads();

// A number at `key` of `object` (NaN when absent, null or not a number).
double jsonNumber(const Json& object, const char* key);

}  // namespace voxen::cli

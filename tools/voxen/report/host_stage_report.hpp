#pragma once
// The GPU integrator's host CPU time per ray (HostStageTimes), as --json fields and as text,
// written once for `voxen bench map` and `voxen map --profile`.
#include <string>

#include "report/json_output.hpp"
#include "voxen/host/profile.hpp"
#include "voxen/occupancy/host_stage_times.hpp"

namespace voxen::cli {

// host_cpu_ns_per_ray and host_<stage>_ns_per_ray, added to `out`.
void addHostStageJson(Json& out, const HostStageTimes& times);

// One line: "prepare 51.2, discovery 80.3, ... = total 190.1 ns per ray".
std::string hostStageLine(const HostStageTimes& times);

// Each pass's total GPU milliseconds (gpu_pass_ms, an object) and their sum
// (gpu_pass_total_ms), added to `out`.
void addPassTimesJson(Json& out, const Profile& profile);

}  // namespace voxen::cli

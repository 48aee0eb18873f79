#include "report/host_stage_report.hpp"

#include <cstdio>

namespace voxen::cli {

namespace {

struct Stage {
  const char* key;   // JSON: host_<key>_ns_per_ray
  const char* name;  // text
  double HostStageTimes::*seconds;
};

constexpr Stage kStages[] = {
    {"prepare", "prepare", &HostStageTimes::prepareSeconds},
    {"discovery", "discovery", &HostStageTimes::discoverySeconds},
    {"residency", "residency", &HostStageTimes::residencySeconds},
    {"upload", "upload", &HostStageTimes::uploadSeconds},
    {"readback", "readback", &HostStageTimes::readbackSeconds},
};

}  // namespace

void addHostStageJson(Json& out, const HostStageTimes& times) {
  out["host_cpu_ns_per_ray"] = rounded(times.nsPerRay(times.totalSeconds()), 2);
  for (const Stage& stage : kStages)
    out[std::string("host_") + stage.key + "_ns_per_ray"] = rounded(times.nsPerRay(times.*stage.seconds), 2);
}

std::string hostStageLine(const HostStageTimes& times) {
  std::string line;
  char text[64];
  for (const Stage& stage : kStages) {
    std::snprintf(text, sizeof text, "%s%s %.1f", line.empty() ? "" : ", ", stage.name, times.nsPerRay(times.*stage.seconds));
    line += text;
  }
  std::snprintf(text, sizeof text, " = %.1f ns per ray", times.nsPerRay(times.totalSeconds()));
  return line + text;
}

void addPassTimesJson(Json& out, const Profile& profile) {
  Json passes = Json::object();
  double total = 0.0;
  for (const auto& [name, timing] : profile.passes()) {
    passes[name] = rounded(timing.totalMs, 3);
    total += timing.totalMs;
  }
  out["gpu_pass_ms"] = passes;
  out["gpu_pass_total_ms"] = rounded(total, 3);
}

}  // namespace voxen::cli

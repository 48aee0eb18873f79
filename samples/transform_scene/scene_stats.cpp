#include "scene_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace transform_scene {

namespace {

struct Times {
  double mean = 0, median = 0, p95 = 0, max = 0;
};

Times times(const std::vector<FrameRecord>& frames) {
  std::vector<double> ms;
  for (const FrameRecord& f : frames) ms.push_back(f.ms);
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  Times t;
  for (double v : ms) t.mean += v / double(ms.size());
  t.median = ms[ms.size() / 2];
  t.p95 = ms[std::min(ms.size() - 1, size_t(double(ms.size()) * 0.95))];
  t.max = ms.back();
  return t;
}

}  // namespace

std::string statsText(const RunInfo& info, const std::vector<FrameRecord>& frames, const voxen::Profile& profile) {
  const Times t = times(frames);
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "scene: %u arms x %llu nodes = %llu nodes, %ux%u pixels, device %s\n", info.arms,
                (unsigned long long)(info.nodes / std::max(info.arms, 1u)), (unsigned long long)info.nodes, info.width,
                info.height, info.device.c_str());
  out << line;
  std::snprintf(line, sizeof line, "frames: %zu, frame ms: mean %.2f, median %.2f, p95 %.2f, max %.2f\n", frames.size(), t.mean,
                t.median, t.p95, t.max);
  out << line;
  if (!frames.empty()) {
    auto [lo, hi] = std::minmax_element(frames.begin(), frames.end(),
                                        [](const FrameRecord& a, const FrameRecord& b) { return a.visible < b.visible; });
    std::snprintf(line, sizeof line, "visible nodes per frame: %u to %u (last %u visible, %u culled)\n", lo->visible,
                  hi->visible, frames.back().visible, frames.back().culled);
    out << line;
  }
  if (info.verified) out << "verified: every frame's culling equals cullCpu, and only visible nodes were drawn\n";
  out << "PNG frames written: " << info.pngsWritten << "\n";
  out << "GPU time per pass (all frames):\n";
  profile.print(out);
  return out.str();
}

std::string statsJson(const RunInfo& info, const std::vector<FrameRecord>& frames, const voxen::Profile& profile) {
  const Times t = times(frames);
  nlohmann::json j;
  j["device"] = info.device;
  j["arms"] = info.arms;
  j["depth"] = info.depth;
  j["fingers"] = info.fingers;
  j["nodes"] = info.nodes;
  j["width"] = info.width;
  j["height"] = info.height;
  j["frames"] = frames.size();
  j["mean_ms"] = t.mean;
  j["median_ms"] = t.median;
  j["p95_ms"] = t.p95;
  j["max_ms"] = t.max;
  j["frames_per_s"] = t.mean > 0 ? 1000.0 / t.mean : 0.0;
  j["pngs_written"] = info.pngsWritten;
  j["verified"] = info.verified;
  nlohmann::json visible = nlohmann::json::array(), culled = nlohmann::json::array(), ms = nlohmann::json::array(),
                 drawn = nlohmann::json::array();
  for (const FrameRecord& f : frames) {
    visible.push_back(f.visible);
    culled.push_back(f.culled);
    ms.push_back(f.ms);
    if (f.drawnNodes >= 0) drawn.push_back(f.drawnNodes);
  }
  j["visible_nodes"] = visible;
  j["culled_nodes"] = culled;
  j["frame_ms"] = ms;
  if (info.verified) j["drawn_nodes"] = drawn;
  nlohmann::json passes = nlohmann::json::object();
  for (const auto& [name, timing] : profile.passes())
    if (timing.timed) passes[name] = frames.empty() ? 0.0 : timing.totalMs / double(frames.size());
  j["gpu_ms_per_frame"] = passes;
  return j.dump();
}

}  // namespace transform_scene

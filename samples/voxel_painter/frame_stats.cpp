#include "frame_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <nlohmann/json.hpp>

namespace voxel_painter {

namespace {

// The nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0.0;
  const size_t rank = size_t(std::ceil(fraction * double(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// A number to the decimals the JSON summary has always had (nlohmann would print every
// digit of the double).
double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::isfinite(value) ? std::round(value * scale) / scale : value;
}

}  // namespace

FrameSummary FrameTimes::summarize(const voxen::Profile& profile) const {
  FrameSummary s;
  s.frames = ms_.size();
  if (!ms_.empty()) {
    std::vector<double> sorted = ms_;
    std::sort(sorted.begin(), sorted.end());
    const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
    s.meanMs = total / double(sorted.size());
    s.medianMs = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                   : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    s.p95Ms = percentile(sorted, 0.95);
    s.maxMs = sorted.back();
    s.framesPerSecond = total > 0.0 ? 1000.0 * double(sorted.size()) / total : 0.0;
  }
  for (const auto& [name, timing] : profile.passes()) {
    s.gpuTimed = s.gpuTimed || timing.timed;
    s.passes.push_back({name, timing.calls, timing.totalMs, s.frames ? timing.totalMs / double(s.frames) : 0.0});
  }
  std::sort(s.passes.begin(), s.passes.end(), [](const PassTime& a, const PassTime& b) { return a.totalMs > b.totalMs; });
  return s;
}

std::string summaryText(const FrameSummary& s) {
  std::string out;
  out += "frames: " + std::to_string(s.frames) + " (" + std::to_string(s.pngsWritten) + " PNG written)\n";
  out += "frame ms: mean " + format("%.2f", s.meanMs) + ", median " + format("%.2f", s.medianMs) + ", p95 " +
         format("%.2f", s.p95Ms) + ", max " + format("%.2f", s.maxMs) + "\n";
  out += "frames/s: " + format("%.1f", s.framesPerSecond) + " (each frame waited for: the latency of one frame)\n";
  out += "triangles: " + std::to_string(s.triangles) +
         (s.overflowTriangles ? " (" + std::to_string(s.overflowTriangles) + " did not fit the triangle list)" : "") + "\n";
  out += "strokes: " + std::to_string(s.strokes) + " changing " + std::to_string(s.brushSamples) + " samples\n";
  if (!s.gpuTimed) {
    out += "GPU time per phase: unavailable (the device has no timestamps)\n";
    return out;
  }
  out += "GPU time per phase:          calls   total ms   ms/frame\n";
  for (const auto& p : s.passes) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s %8llu %10.2f %10.3f\n", p.name.c_str(), (unsigned long long)p.calls,
                  p.totalMs, p.msPerFrame);
    out += line;
  }
  return out;
}

std::string summaryJson(const FrameSummary& s) {
  nlohmann::ordered_json passes = nlohmann::ordered_json::object();  // largest GPU time first, as in the text
  for (const PassTime& pass : s.passes) passes[pass.name] = rounded(pass.msPerFrame, 4);
  const nlohmann::ordered_json summary = {{"frames", s.frames},
                                          {"pngs", s.pngsWritten},
                                          {"mean_ms", rounded(s.meanMs, 4)},
                                          {"median_ms", rounded(s.medianMs, 4)},
                                          {"p95_ms", rounded(s.p95Ms, 4)},
                                          {"max_ms", rounded(s.maxMs, 4)},
                                          {"frames_per_s", rounded(s.framesPerSecond, 3)},
                                          {"triangles", s.triangles},
                                          {"overflow_triangles", s.overflowTriangles},
                                          {"strokes", s.strokes},
                                          {"brush_samples", s.brushSamples},
                                          {"gpu_timed", s.gpuTimed},
                                          {"gpu_ms_per_frame", passes}};
  return summary.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace voxel_painter

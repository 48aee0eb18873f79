#pragma once
// Frame times and where the GPU spent them: the summary the headless mode ends with.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/host/profile.hpp"

namespace voxel_painter {

struct PassTime {
  std::string name;
  uint64_t calls = 0;
  double totalMs = 0.0;
  double msPerFrame = 0.0;
};

struct FrameSummary {
  uint64_t frames = 0;
  double meanMs = 0.0, medianMs = 0.0, p95Ms = 0.0, maxMs = 0.0;
  double framesPerSecond = 0.0;  // frames over the sum of frame times
  uint64_t pngsWritten = 0;
  uint32_t triangles = 0;        // in the last frame's mesh
  uint32_t overflowTriangles = 0;
  uint64_t strokes = 0;          // frames with a brush stroke
  uint64_t brushSamples = 0;     // samples those strokes changed
  bool gpuTimed = false;         // false when the device has no timestamps
  std::vector<PassTime> passes;  // by GPU time, largest first
};

class FrameTimes {
 public:
  void add(double milliseconds) { ms_.push_back(milliseconds); }
  // Times, plus the GPU time per pass from the scheduler's profile.
  FrameSummary summarize(const voxen::Profile& profile) const;

 private:
  std::vector<double> ms_;
};

std::string summaryText(const FrameSummary& summary);
std::string summaryJson(const FrameSummary& summary);

}  // namespace voxel_painter

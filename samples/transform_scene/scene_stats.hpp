#pragma once
// The headless run's record: per frame the visible (and culled) nodes and the frame time,
// and the GPU time per pass from the scheduler's profile; printed as text or one JSON object.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/host/profile.hpp"

namespace transform_scene {

struct FrameRecord {
  uint32_t visible = 0, culled = 0;
  double ms = 0.0;              // wall time of the frame, recorded to finished
  int64_t drawnNodes = -1;      // --verify only: visible nodes covering a pixel
};

struct RunInfo {
  std::string device;
  uint32_t arms = 0, depth = 0, fingers = 0, width = 0, height = 0;
  uint64_t nodes = 0;
  uint64_t pngsWritten = 0;
  bool verified = false;
};

std::string statsText(const RunInfo& info, const std::vector<FrameRecord>& frames, const voxen::Profile& profile);
std::string statsJson(const RunInfo& info, const std::vector<FrameRecord>& frames, const voxen::Profile& profile);

}  // namespace transform_scene

#pragma once
// The colour images of a TUM RGB-D folder for its depth frames: rgb.txt's PNGs (rgb/*.png),
// each depth image taking the one whose timestamp is nearest its own within the tolerance
// (depth_source.hpp's rules; TUM's associate.py pairs them the same way at 0.02 s).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "depth/tum_list.hpp"
#include "voxen/input/colour_decode.hpp"
#include "voxen/input/depth_source.hpp"

namespace voxen::detail {

class TumColour {
 public:
  // Reads rgb.txt (Error when the folder has none or it lists no image) and checks the first
  // image's size against the depth camera's (an Error naming both files and sizes). A
  // colourTopic is an Error: a folder has no topics.
  TumColour(const std::filesystem::path& folder, const DepthSourceOptions& options, const DepthCamera& camera,
            const std::filesystem::path& firstDepthImage);
  // The colour image for a depth image at `time` (seconds, as depth.txt gives it), undistorted
  // as the depth image is; nullopt when none is within the tolerance.
  std::optional<ColourImage> at(double time) const;
  void describe(DepthSourceInfo& info) const;

 private:
  std::filesystem::path folder_;
  std::vector<TumImage> images_;
  std::vector<int64_t> micros_;  // images_' times in microseconds (TUM's timestamps have 6 decimals)
  int64_t toleranceMicros_ = 0;
  const DepthCamera& camera_;
};

}  // namespace voxen::detail

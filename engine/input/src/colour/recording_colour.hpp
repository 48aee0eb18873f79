#pragma once
// The colour images of a bag or an MCAP file for its depth frames (depth_source.hpp's rules):
// the colour topic chosen and checked against the depth camera, then read once, in recording
// order, as the depth frames' stamps advance, keeping only the images that a later depth frame
// could still take.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "depth/depth_topics.hpp"
#include "voxen/input/colour_decode.hpp"
#include "voxen/input/depth_source.hpp"

namespace voxen::detail {

// Nanoseconds of a colour tolerance in seconds; SettingError naming
// DepthSourceOptions::colourMaxTimeDifference unless finite, >= 0 and at most an hour.
int64_t colourToleranceNs(double seconds);

class RecordingColour {
 public:
  // Chooses the topic (colour_topics.hpp), decodes its first image (an encoding or format that
  // is not read is an Error naming the topic) and checks its size against the depth camera's
  // (an Error naming both topics and sizes). `rec` outlives this.
  RecordingColour(Recording& rec, const std::vector<ImageTopic>& images, const std::string& depthTopic,
                  const DepthSourceOptions& options, const DepthCamera& camera);
  // The colour for a depth image stamped `stampNs` (stamps never decrease from call to call),
  // undistorted as the depth image is; nullopt when no colour image is within the tolerance.
  std::optional<ColourImage> at(int64_t stampNs);
  void describe(DepthSourceInfo& info) const;

 private:
  struct Pending {
    int64_t stampNs = 0;
    size_t index = 0;
    std::vector<uint8_t> bytes;
  };
  std::string where(size_t k) const;
  ColourImage decode(const Pending& p) const;
  int64_t stampOf(const std::vector<uint8_t>& bytes, size_t k) const;

  Recording& rec_;
  std::string topic_, type_, encodingText_;
  bool compressed_ = false;
  ros::MessageEncoding encoding_ = ros::MessageEncoding::Ros1;
  std::vector<RecordedMessage> messages_;
  const DepthCamera& camera_;
  int64_t toleranceNs_ = 0;
  size_t next_ = 0;
  int64_t latestRead_ = 0;
  bool readAny_ = false;
  std::deque<Pending> window_;
};

}  // namespace voxen::detail

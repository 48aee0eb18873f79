#pragma once
// The seam behind voxen::DepthSource: one Impl per kind of input, each filling the info and
// stats the public class hands out.
#include <filesystem>
#include <memory>

#include "voxen/input/depth_source.hpp"

namespace voxen {

class DepthSource::Impl {
 public:
  virtual ~Impl() = default;
  virtual bool next(DepthFrame& frame) = 0;
  DepthSourceInfo info;
  DepthSourceStats stats;
};

namespace detail {

// A ROS 1 bag or an MCAP file (depth_recording_source.cpp).
std::unique_ptr<DepthSource::Impl> openRecordingDepth(const std::filesystem::path& path, const DepthSourceOptions& options);
// A TUM RGB-D folder (tum_depth_source.cpp).
std::unique_ptr<DepthSource::Impl> openTumDepth(const std::filesystem::path& path, const DepthSourceOptions& options);

}  // namespace detail
}  // namespace voxen

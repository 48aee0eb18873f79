#pragma once
// A synthetic lidar run written as a robot would record it: a ROS 1 bag or an MCAP file
// (ROS 2, CDR) holding one organised sensor_msgs/PointCloud2 per scan in the lidar's frame
// (float32 x y z intensity, uint32 t in nanoseconds after header.stamp, uint16 ring; NaN
// where a beam had no return) and tf: map -> odom static (identity), odom -> lidar moving at
// the trajectory rate.
//
// Optionally the same points as a PLY cloud (map frame) with a trajectory text, written so
// that `voxen map` makes the same rays from either, bit for bit: the PLY's points are the
// recording's float32 points posed by tf exactly as the reader poses them, its times are
// the recording's (stamp + t), and the trajectory's lines are the tf samples to 17 digits.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen {

struct LidarRecordingOptions {
  // "" (none); bags: "lz4" or "bz2"; MCAP: "zstd" or "lz4".
  std::string compression;
  double tfRateHz = 100.0;
  std::string cloudTopic = "/points";
  std::filesystem::path plyPath, trajectoryPath;  // optional: the same run as PLY + trajectory
};

struct LidarRecordingSummary {
  uint64_t clouds = 0, points = 0, returns = 0, transforms = 0;
  uint64_t bytes = 0;
  double seconds = 0.0;
};

// The format from the extension: .bag (ROS 1) or .mcap; anything else is an Error. Writes
// through a temporary renamed into place, so a failed run leaves no half-written file.
LidarRecordingSummary writeLidarRecording(const SyntheticScene& scene, const LidarConfig& config,
                                          const std::filesystem::path& path, const LidarRecordingOptions& options,
                                          const std::function<void(const LidarScan&, const LidarRecordingSummary&)>& progress = {});

}  // namespace voxen

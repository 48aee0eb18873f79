#pragma once
// KITTI odometry sequences: velodyne/NNNNNN.bin scans (float32 x, y, z, reflectance per
// point, in the lidar's frame), poses.txt (camera 0's pose per scan, 3x4 row-major; also
// found as ../../poses/<sequence>.txt, the dataset's own layout), calib.txt (its Tr: the
// lidar's pose in camera 0's frame) and times.txt (a time per scan, in seconds; without it,
// scans are 0.1 s apart, the sensor's 10 Hz).
//
// The map frame is the first scan's lidar frame (z up, as the lidar sees it): scan i's
// lidar pose is Tr^-1 * P_i * Tr, where P_i is camera 0's pose.
#include <glm/mat4x4.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace voxen {

struct KittiSequence {
  std::filesystem::path folder;
  std::filesystem::path posesFile, calibFile, timesFile;  // timesFile empty when absent
  std::vector<std::filesystem::path> scans;  // in name order
  std::vector<glm::dmat4> lidarPoses;        // one per scan, in the map frame
  std::vector<double> times;                 // one per scan
  uint64_t points = 0;                       // over every scan (file sizes / 16)
};

// Throws Error naming the file and line of a malformed pose, calibration or time, and a
// sequence with fewer poses or times than scans, or a scan whose size is no multiple of 16.
// A pose or Tr whose 3x3 part is no rotation (R^T R more than 0.01 from the identity in an
// entry, or a mirror) is an error naming the file and line: it would scale or shear the scan.
KittiSequence loadKittiSequence(const std::filesystem::path& folder);

// Reads 3x4 row-major matrices, one a line (12 numbers), as 4x4 with a last row 0 0 0 1.
std::vector<glm::dmat4> readKittiPoses(const std::filesystem::path& path);

}  // namespace voxen

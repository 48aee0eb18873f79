#pragma once
// What kind of recording a path holds, told by its content (magic bytes, folder layout)
// rather than by its name alone, so a renamed or extension-less file is still read right.
#include <filesystem>
#include <string>

namespace voxen {

enum class InputFormat {
  Ply,            // "ply\n" (or "ply\r\n")
  Pcd,            // "# .PCD" comment line or a "VERSION" line first
  PcdFolder,      // a folder holding *.pcd files (read in name order)
  KittiScan,      // a single KITTI velodyne .bin: float32 x y z reflectance (by extension, size a multiple of 16)
  KittiSequence,  // a KITTI odometry sequence folder: velodyne/*.bin, with poses.txt and calib.txt
  RosBag,         // "#ROSBAG V2.0"
  Mcap,           // 0x89 "MCAP0\r\n"
  TumRgbd,        // a TUM RGB-D folder: depth.txt naming depth/*.png (depth images: voxen/input/depth_source.hpp)
};

const char* inputFormatName(InputFormat format);

// Throws Error naming the path when it is missing, unreadable, or of no format above (with
// the bytes it starts with), and for a folder holding nothing Voxen reads.
InputFormat detectInputFormat(const std::filesystem::path& path);

}  // namespace voxen

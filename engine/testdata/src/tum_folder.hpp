#pragma once
// A TUM RGB-D dataset folder of depth frames (depth_recording.hpp describes the files), built
// in a hidden sibling folder and renamed onto the target by close(); a writer destroyed
// without close() removes what it built and leaves the target as it was.
#include <cstdint>
#include <filesystem>
#include <string>

#include "voxen/testdata/depth_camera.hpp"

namespace voxen {

class TumFolderWriter {
 public:
  // Throws Error when the target is a file or a folder with something in it, or the sibling
  // cannot be made.
  TumFolderWriter(const std::filesystem::path& target, const CameraIntrinsics& camera);
  ~TumFolderWriter();
  TumFolderWriter(const TumFolderWriter&) = delete;
  TumFolderWriter& operator=(const TumFolderWriter&) = delete;

  // depth/TIMESTAMP.png from measuredDepth (5000 units per metre), and a line in depth.txt
  // and in groundtruth.txt; with colour, rgb/TIMESTAMP.png (8-bit RGB) and a line in rgb.txt.
  void frame(const GeneratedDepthFrame& frame);
  // Writes the text files (rgb.txt when a frame had colour) and renames the folder into place; returns the bytes of its files.
  uint64_t close();

 private:
  void writeFile(const std::string& name, const std::string& bytes);
  std::filesystem::path target_, building_;
  CameraIntrinsics camera_;
  std::string depthList_, groundTruth_, rgbList_;
  bool colour_ = false;
  uint64_t bytes_ = 0;
  bool closed_ = false;
};

// TUM's timestamp text: seconds with 6 decimals, as the dataset's file names have them.
std::string tumTimestamp(double seconds);
// The camera in ROS camera_calibration's YAML (camera_info.yaml).
std::string cameraInfoYaml(const CameraIntrinsics& camera, const std::string& cameraName);

}  // namespace voxen

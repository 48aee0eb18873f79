#pragma once
// A camera from a ROS camera_calibration YAML file (camera_yaml.cpp says which shape), as the
// CameraInfo a recording would carry: image_width/height, K, D and its model, R (identity when
// absent) and P (zero when absent: K's camera is used). Error naming the file and line.
#include <filesystem>

#include "voxen/input/image_messages.hpp"

namespace voxen::detail {

ros::CameraInfo loadCameraYaml(const std::filesystem::path& path);

}  // namespace voxen::detail

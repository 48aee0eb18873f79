// The texts writers store next to the depth camera's messages (image_messages.hpp): ROS 1
// definitions without comments (genmsg's MD5 sums are over the comment-free text, so these
// give the released sums, checked against them) and the ROS 2 "ros2msg" schema texts.
#include "voxen/input/image_messages.hpp"

#define VOXEN_ROS1_HEADER \
  "================================================================================\n" \
  "MSG: std_msgs/Header\n" \
  "uint32 seq\n" \
  "time stamp\n" \
  "string frame_id\n"

#define VOXEN_ROS2_HEADER \
  "================================================================================\n" \
  "MSG: std_msgs/Header\n" \
  "builtin_interfaces/Time stamp\n" \
  "string frame_id\n" \
  "================================================================================\n" \
  "MSG: builtin_interfaces/Time\n" \
  "int32 sec\n" \
  "uint32 nanosec\n"

namespace voxen::ros {

const std::string& imageMd5() {
  static const std::string md5 = "060021388200f6f0f447d0fcd9c64743";
  return md5;
}

const std::string& compressedImageMd5() {
  static const std::string md5 = "8f7a12909da2c9d3332d540a0977563f";
  return md5;
}

const std::string& cameraInfoMd5() {
  static const std::string md5 = "c9a58c1b0b154e0e6da7578cb991d214";
  return md5;
}

const std::string& imageRos1Definition() {
  static const std::string text =
      "Header header\n"
      "uint32 height\n"
      "uint32 width\n"
      "string encoding\n"
      "uint8 is_bigendian\n"
      "uint32 step\n"
      "uint8[] data\n"
      "\n" VOXEN_ROS1_HEADER;
  return text;
}

const std::string& compressedImageRos1Definition() {
  static const std::string text =
      "Header header\n"
      "string format\n"
      "uint8[] data\n"
      "\n" VOXEN_ROS1_HEADER;
  return text;
}

const std::string& cameraInfoRos1Definition() {
  static const std::string text =
      "Header header\n"
      "uint32 height\n"
      "uint32 width\n"
      "string distortion_model\n"
      "float64[] D\n"
      "float64[9] K\n"
      "float64[9] R\n"
      "float64[12] P\n"
      "uint32 binning_x\n"
      "uint32 binning_y\n"
      "RegionOfInterest roi\n"
      "\n" VOXEN_ROS1_HEADER
      "\n"
      "================================================================================\n"
      "MSG: sensor_msgs/RegionOfInterest\n"
      "uint32 x_offset\n"
      "uint32 y_offset\n"
      "uint32 height\n"
      "uint32 width\n"
      "bool do_rectify\n";
  return text;
}

const std::string& imageRos2Schema() {
  static const std::string text =
      "std_msgs/Header header\n"
      "uint32 height\n"
      "uint32 width\n"
      "string encoding\n"
      "uint8 is_bigendian\n"
      "uint32 step\n"
      "uint8[] data\n" VOXEN_ROS2_HEADER;
  return text;
}

const std::string& compressedImageRos2Schema() {
  static const std::string text =
      "std_msgs/Header header\n"
      "string format\n"
      "uint8[] data\n" VOXEN_ROS2_HEADER;
  return text;
}

const std::string& cameraInfoRos2Schema() {
  static const std::string text =
      "std_msgs/Header header\n"
      "uint32 height\n"
      "uint32 width\n"
      "string distortion_model\n"
      "float64[] d\n"
      "float64[9] k\n"
      "float64[9] r\n"
      "float64[12] p\n"
      "uint32 binning_x\n"
      "uint32 binning_y\n"
      "sensor_msgs/RegionOfInterest roi\n" VOXEN_ROS2_HEADER
      "================================================================================\n"
      "MSG: sensor_msgs/RegionOfInterest\n"
      "uint32 x_offset\n"
      "uint32 y_offset\n"
      "uint32 height\n"
      "uint32 width\n"
      "bool do_rectify\n";
  return text;
}

}  // namespace voxen::ros

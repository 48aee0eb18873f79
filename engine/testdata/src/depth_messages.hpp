#pragma once
// The two camera messages a depth recording holds, sensor_msgs/Image and sensor_msgs/CameraInfo,
// serialized for the recording writers (depth_recording.cpp): ROS 1 for bags, CDR (XCDR1,
// little-endian) for ROS 2 MCAP, in the layouts voxen/input/ros_messages.hpp describes for
// PointCloud2 and TFMessage. With their ROS 1 MD5 sums and definitions and ROS 2 schemas.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/input/ros_messages.hpp"
#include "voxen/map/depth_image.hpp"

namespace voxen::ros {

// A 16UC1 image (encoding "16UC1", little-endian, step = 2 x width) of the frame's depth16.
std::vector<uint8_t> encodeDepthImage(const DepthImage& image, int64_t stampNs, const std::string& frameId,
                                      MessageEncoding encoding);
// plumb_bob with zero distortion, K from the intrinsics, R identity, P = [K | 0], no binning, no ROI.
std::vector<uint8_t> encodeCameraInfo(const CameraIntrinsics& camera, int64_t stampNs, const std::string& frameId,
                                      MessageEncoding encoding);

struct MessageType {
  std::string ros1Type, ros2Type, md5, ros1Definition, ros2Schema;
};
const MessageType& imageMessageType();
const MessageType& cameraInfoMessageType();

}  // namespace voxen::ros

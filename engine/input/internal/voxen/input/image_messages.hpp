#pragma once
// The three ROS messages of a depth camera, sensor_msgs/Image, sensor_msgs/CompressedImage and
// sensor_msgs/CameraInfo, decoded from either serialization (ROS 1 or CDR, as ros_messages.hpp
// describes them), and encoded for the tests and generators. Field layouts as released in
// Noetic and in ROS 2 (the same fields; ROS 2 spells CameraInfo's arrays d k r p):
//   Image            Header, uint32 height, uint32 width, string encoding, uint8 is_bigendian,
//                    uint32 step, uint8[] data
//   CompressedImage  Header, string format, uint8[] data
//   CameraInfo       Header, uint32 height, uint32 width, string distortion_model, float64[] D,
//                    float64[9] K, float64[9] R, float64[12] P, uint32 binning_x,
//                    uint32 binning_y, RegionOfInterest roi (uint32 x_offset, y_offset, height,
//                    width, bool do_rectify)
// Decoders never copy image data: Image::data and CompressedImage::data point into the
// message's bytes, which must outlive them.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/input/ros_messages.hpp"

namespace voxen::ros {

struct Image {
  int64_t stampNs = 0;
  std::string frameId;
  uint32_t height = 0, width = 0;
  std::string encoding;  // "16UC1", "32FC1", "rgb8", ...
  bool isBigEndian = false;
  uint32_t step = 0;  // bytes per row
  std::span<const uint8_t> data;
};

struct CompressedImage {
  int64_t stampNs = 0;
  std::string frameId;
  std::string format;  // "16UC1; compressedDepth png", "jpeg", ...
  std::span<const uint8_t> data;
};

struct RegionOfInterest {
  uint32_t xOffset = 0, yOffset = 0, height = 0, width = 0;
  bool doRectify = false;
  bool operator==(const RegionOfInterest&) const = default;
};

struct CameraInfo {
  int64_t stampNs = 0;
  std::string frameId;
  uint32_t height = 0, width = 0;
  std::string distortionModel;  // "plumb_bob", "rational_polynomial", "equidistant", ...
  std::vector<double> d;
  std::array<double, 9> k{}, r{};  // row-major 3 x 3
  std::array<double, 12> p{};      // row-major 3 x 4
  uint32_t binningX = 0, binningY = 0;
  RegionOfInterest roi;
};

// Throw voxen::Error beginning with `where`, as decodePointCloud2 does: a message that ends
// too early, a length past its end, an unknown CDR encapsulation. decodeImage also checks that
// data holds step x height bytes and that step holds a row of the encoding's pixels when the
// encoding is one it knows (16UC1, 32FC1, mono8/16, rgb8/bgr8/rgba8/bgra8, 8UC1..3).
Image decodeImage(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where);
CompressedImage decodeCompressedImage(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where);
CameraInfo decodeCameraInfo(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where);

std::vector<uint8_t> encodeImage(const Image& image, MessageEncoding encoding, bool bigEndianCdr = false);
std::vector<uint8_t> encodeCompressedImage(const CompressedImage& image, MessageEncoding encoding,
                                           bool bigEndianCdr = false);
std::vector<uint8_t> encodeCameraInfo(const CameraInfo& info, MessageEncoding encoding, bool bigEndianCdr = false);

// Bytes per pixel of an Image encoding; 0 for one Voxen does not know.
size_t imageEncodingPixelBytes(const std::string& encoding);

// Type names, ROS 1 MD5 sums and definitions (the message texts without comments, so their
// MD5 sums are genmsg's), and ROS 2 schema texts ("ros2msg"), for writers.
inline constexpr std::string_view kImageRos1Type = "sensor_msgs/Image";
inline constexpr std::string_view kImageRos2Type = "sensor_msgs/msg/Image";
inline constexpr std::string_view kCompressedImageRos1Type = "sensor_msgs/CompressedImage";
inline constexpr std::string_view kCompressedImageRos2Type = "sensor_msgs/msg/CompressedImage";
inline constexpr std::string_view kCameraInfoRos1Type = "sensor_msgs/CameraInfo";
inline constexpr std::string_view kCameraInfoRos2Type = "sensor_msgs/msg/CameraInfo";
const std::string& imageMd5();            // "060021388200f6f0f447d0fcd9c64743"
const std::string& compressedImageMd5();  // "8f7a12909da2c9d3332d540a0977563f"
const std::string& cameraInfoMd5();       // "c9a58c1b0b154e0e6da7578cb991d214"
const std::string& imageRos1Definition();
const std::string& compressedImageRos1Definition();
const std::string& cameraInfoRos1Definition();
const std::string& imageRos2Schema();
const std::string& compressedImageRos2Schema();
const std::string& cameraInfoRos2Schema();

}  // namespace voxen::ros

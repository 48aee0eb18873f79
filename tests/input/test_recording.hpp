#pragma once
// Small recordings for the depth and colour input tests (test_depth_source.cpp,
// test_depth_colour.cpp): messages of a depth camera's types (Image, CompressedImage,
// CameraInfo, TFMessage), each encodable as ROS 1 or CDR, written as an MCAP file and, where
// this build reads bags, a ROS 1 bag; and PNGs written by libpng's simplified API, independent
// of the readers' own PNG code.
#include <catch2/catch.hpp>

#include <png.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "voxen/input/image_messages.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"

namespace vt {

// One message of a recording, with what both containers need to write it.
struct RecordingMessage {
  std::string topic;
  int64_t timeNs = 0;
  std::string ros1Type, ros2Type, md5, definition, schema;
  std::function<std::vector<uint8_t>(voxen::ros::MessageEncoding)> encode;
};

struct TestRecording {
  std::vector<RecordingMessage> messages;
  std::vector<std::vector<uint8_t>> storage;  // image data the messages point into

  std::span<const uint8_t> keep(std::vector<uint8_t> bytes) { return storage.emplace_back(std::move(bytes)); }
  void tf(const std::string& topic, const voxen::ros::TransformStamped& t) {
    namespace ros = voxen::ros;
    messages.push_back({topic, t.stampNs, std::string(ros::kTfMessageRos1Type), std::string(ros::kTfMessageRos2Type),
                        ros::tfMessageMd5(), ros::tfMessageRos1Definition(), ros::tfMessageRos2Schema(),
                        [t](ros::MessageEncoding e) { return ros::encodeTfMessage(std::span(&t, 1), e); }});
  }
  void image(const std::string& topic, int64_t timeNs, const voxen::ros::Image& m) {
    namespace ros = voxen::ros;
    messages.push_back({topic, timeNs, std::string(ros::kImageRos1Type), std::string(ros::kImageRos2Type), ros::imageMd5(),
                        ros::imageRos1Definition(), ros::imageRos2Schema(),
                        [m](ros::MessageEncoding e) { return ros::encodeImage(m, e); }});
  }
  void compressed(const std::string& topic, int64_t timeNs, const voxen::ros::CompressedImage& m) {
    namespace ros = voxen::ros;
    messages.push_back({topic, timeNs, std::string(ros::kCompressedImageRos1Type), std::string(ros::kCompressedImageRos2Type),
                        ros::compressedImageMd5(), ros::compressedImageRos1Definition(), ros::compressedImageRos2Schema(),
                        [m](ros::MessageEncoding e) { return ros::encodeCompressedImage(m, e); }});
  }
  void cameraInfo(const std::string& topic, int64_t timeNs, const voxen::ros::CameraInfo& m) {
    namespace ros = voxen::ros;
    messages.push_back({topic, timeNs, std::string(ros::kCameraInfoRos1Type), std::string(ros::kCameraInfoRos2Type),
                        ros::cameraInfoMd5(), ros::cameraInfoRos1Definition(), ros::cameraInfoRos2Schema(),
                        [m](ros::MessageEncoding e) { return ros::encodeCameraInfo(m, e); }});
  }
};

// The recording as an MCAP file (CDR; chunks compressed as `compression` says: "" none, "zstd", "lz4").
inline void writeTestMcap(const std::filesystem::path& path, const TestRecording& r, const std::string& compression = "") {
  voxen::mcap::Writer mcap(path, {.compression = compression});
  const auto bytes = [](const std::string& s) { return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  std::map<std::string, uint16_t> schemas, channels;
  for (const RecordingMessage& m : r.messages) {
    if (!schemas.count(m.ros2Type)) schemas[m.ros2Type] = mcap.addSchema(m.ros2Type, "ros2msg", bytes(m.schema));
    if (!channels.count(m.topic)) channels[m.topic] = mcap.addChannel(schemas[m.ros2Type], m.topic, "cdr");
  }
  for (const RecordingMessage& m : r.messages)
    mcap.write(channels[m.topic], uint64_t(m.timeNs), uint64_t(m.timeNs), m.encode(voxen::ros::MessageEncoding::Cdr));
  mcap.close();
}

#if VOXEN_HAVE_ROSBAG
inline void writeTestBag(const std::filesystem::path& path, const TestRecording& r) {
  voxen::RosBagWriter bag(path, "");
  for (const RecordingMessage& m : r.messages)
    bag.write(m.topic, m.timeNs, m.ros1Type, m.md5, m.definition, m.encode(voxen::ros::MessageEncoding::Ros1));
  bag.close();
}
#endif

// DIR/NAME.mcap, and DIR/NAME.bag where this build reads bags: the paths written.
inline std::vector<std::filesystem::path> writeTestRecordings(const std::filesystem::path& dir, const std::string& name,
                                                              const TestRecording& r, const std::string& mcapCompression = "") {
  std::vector<std::filesystem::path> out{dir / (name + ".mcap")};
  writeTestMcap(out[0], r, mcapCompression);
#if VOXEN_HAVE_ROSBAG
  out.push_back(dir / (name + ".bag"));
  writeTestBag(out[1], r);
#endif
  return out;
}

// A PNG of `pixels` (rows of width x the format's channels; 16-bit values for the LINEAR formats).
inline std::vector<uint8_t> testPng(const void* pixels, uint32_t width, uint32_t height, uint32_t format) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = width, image.height = height;
  image.format = format;
  png_alloc_size_t size = 0;
  REQUIRE(png_image_write_to_memory(&image, nullptr, &size, 0, pixels, 0, nullptr));
  std::vector<uint8_t> out(size);
  REQUIRE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels, 0, nullptr));
  out.resize(size);
  return out;
}

}  // namespace vt

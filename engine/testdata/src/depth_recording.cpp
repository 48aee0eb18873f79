#include "voxen/testdata/depth_recording.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "tum_folder.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/image_messages.hpp"
#include "voxen/input/mcap_reader.hpp"
#include "voxen/input/ros_messages.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"

namespace voxen {

namespace {

std::span<const uint8_t> bytesOf(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// The frame's 16UC1 image (little-endian millimetres, as the hosts Voxen runs on store them).
ros::Image depthImageMessage(const GeneratedDepthFrame& f, const std::string& frameId) {
  const DepthImage& d = f.frame.depth;
  ros::Image image;
  image.stampNs = f.stampNs;
  image.frameId = frameId;
  image.height = d.height;
  image.width = d.width;
  image.encoding = "16UC1";
  image.step = d.width * 2;
  image.data = {reinterpret_cast<const uint8_t*>(d.depth16.data()), d.depth16.size() * 2};
  return image;
}

// The frame's colour as rgb8, in the depth image's frame (registered to it).
ros::Image colourImageMessage(const GeneratedDepthFrame& f, const std::string& frameId) {
  const ColourImage& c = *f.frame.colour;
  ros::Image image;
  image.stampNs = f.stampNs;
  image.frameId = frameId;
  image.height = c.height;
  image.width = c.width;
  image.encoding = "rgb8";
  image.step = c.width * 3;
  image.data = c.rgb;
  return image;
}

// plumb_bob with zero distortion, K from the intrinsics, R identity, P = [K | 0], no binning, no ROI.
ros::CameraInfo cameraInfoMessage(const GeneratedDepthFrame& f, const std::string& frameId) {
  const CameraIntrinsics& k = f.frame.intrinsics;
  ros::CameraInfo info;
  info.stampNs = f.stampNs;
  info.frameId = frameId;
  info.height = k.height;
  info.width = k.width;
  info.distortionModel = "plumb_bob";
  info.d.assign(5, 0.0);
  info.k = {k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0};
  info.r = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  info.p = {k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0};
  return info;
}

// A bag or an MCAP file written the same way: the three message types by topic.
class RosDepthOut {
 public:
  RosDepthOut(const std::filesystem::path& path, DepthRecordingFormat format, const DepthRecordingOptions& options, bool colour)
      : options_(options) {
    if (format == DepthRecordingFormat::RosBag) {
      bag_ = std::make_unique<RosBagWriter>(path, options.compression);
      return;
    }
    if (!options.compression.empty() && options.compression != "zstd" && options.compression != "lz4")
      throw Error(path.string() + ": unknown MCAP compression '" + options.compression + "' (zstd, lz4)");
    mcap::WriterOptions o;
    o.compression = options.compression;
    mcap_ = std::make_unique<mcap::Writer>(path, o);
    const auto schema = [&](const std::string& name, const std::string& text) {
      return mcap_->addSchema(name, "ros2msg", bytesOf(text));
    };
    const uint16_t imageSchema = schema(std::string(ros::kImageRos2Type), ros::imageRos2Schema());
    imageChannel_ = mcap_->addChannel(imageSchema, options.depthTopic, "cdr");
    infoChannel_ =
        mcap_->addChannel(schema(std::string(ros::kCameraInfoRos2Type), ros::cameraInfoRos2Schema()), options.infoTopic, "cdr");
    if (colour) colourChannel_ = mcap_->addChannel(imageSchema, options.colourTopic, "cdr");
    const uint16_t tf = schema(std::string(ros::kTfMessageRos2Type), ros::tfMessageRos2Schema());
    tfStaticChannel_ = mcap_->addChannel(tf, "/tf_static", "cdr");
    tfChannel_ = mcap_->addChannel(tf, "/tf", "cdr");
  }
  ros::MessageEncoding encoding() const { return bag_ ? ros::MessageEncoding::Ros1 : ros::MessageEncoding::Cdr; }

  void tf(bool isStatic, std::span<const ros::TransformStamped> transforms) {
    const std::vector<uint8_t> bytes = ros::encodeTfMessage(transforms, encoding());
    const int64_t ns = transforms.front().stampNs;
    if (bag_)
      bag_->write(isStatic ? "/tf_static" : "/tf", ns, std::string(ros::kTfMessageRos1Type), ros::tfMessageMd5(),
                  ros::tfMessageRos1Definition(), bytes);
    else
      mcap_->write(isStatic ? tfStaticChannel_ : tfChannel_, uint64_t(ns), uint64_t(ns), bytes);
  }
  void frame(const GeneratedDepthFrame& f) {
    const std::vector<uint8_t> info = ros::encodeCameraInfo(cameraInfoMessage(f, options_.opticalFrame), encoding());
    const std::vector<uint8_t> image = ros::encodeImage(depthImageMessage(f, options_.opticalFrame), encoding());
    if (bag_) {
      bag_->write(options_.infoTopic, f.stampNs, std::string(ros::kCameraInfoRos1Type), ros::cameraInfoMd5(),
                  ros::cameraInfoRos1Definition(), info);
      bag_->write(options_.depthTopic, f.stampNs, std::string(ros::kImageRos1Type), ros::imageMd5(),
                  ros::imageRos1Definition(), image);
    } else {
      mcap_->write(infoChannel_, uint64_t(f.stampNs), uint64_t(f.stampNs), info);
      mcap_->write(imageChannel_, uint64_t(f.stampNs), uint64_t(f.stampNs), image);
    }
    if (!f.frame.colour) return;
    const std::vector<uint8_t> colour = ros::encodeImage(colourImageMessage(f, options_.opticalFrame), encoding());
    if (bag_)
      bag_->write(options_.colourTopic, f.stampNs, std::string(ros::kImageRos1Type), ros::imageMd5(),
                  ros::imageRos1Definition(), colour);
    else
      mcap_->write(colourChannel_, uint64_t(f.stampNs), uint64_t(f.stampNs), colour);
  }
  void close() {
    if (bag_) bag_->close();
    if (mcap_) mcap_->close();
  }

 private:
  DepthRecordingOptions options_;
  std::unique_ptr<RosBagWriter> bag_;
  std::unique_ptr<mcap::Writer> mcap_;
  uint16_t imageChannel_ = 0, infoChannel_ = 0, colourChannel_ = 0, tfStaticChannel_ = 0, tfChannel_ = 0;
};

ros::TransformStamped transform(int64_t ns, const std::string& parent, const std::string& child,
                                const TrajectorySample& pose) {
  ros::TransformStamped t;
  t.stampNs = ns;
  t.parentFrame = parent;
  t.childFrame = child;
  t.translation = pose.position;
  t.rotation = glm::normalize(pose.orientation);
  return t;
}

}  // namespace

DepthRecordingFormat depthRecordingFormat(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".bag") return DepthRecordingFormat::RosBag;
  if (ext == ".mcap") return DepthRecordingFormat::Mcap;
  return DepthRecordingFormat::TumFolder;
}

const char* depthRecordingFormatName(DepthRecordingFormat format) {
  switch (format) {
    case DepthRecordingFormat::RosBag: return "ROS 1 bag";
    case DepthRecordingFormat::Mcap: return "MCAP";
    default: return "TUM RGB-D folder";
  }
}

DepthRecordingSummary writeDepthRecording(
    const SyntheticScene& scene, const DepthCameraConfig& config, const std::filesystem::path& path,
    const DepthRecordingOptions& options,
    const std::function<void(const GeneratedDepthFrame&, const DepthRecordingSummary&)>& progress) {
  config.validate();
  const auto started = std::chrono::steady_clock::now();
  const DepthRecordingFormat format = depthRecordingFormat(path);
  DepthRecordingSummary summary;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (format == DepthRecordingFormat::TumFolder) {
    if (!options.compression.empty())
      throw Error(path.string() + ": a TUM RGB-D folder is not compressed (compression '" + options.compression + "')");
    TumFolderWriter tum(path, config.intrinsics());
    generateDepthFrames(scene, config, [&](const GeneratedDepthFrame& f) {
      tum.frame(f);
      ++summary.frames;
      summary.colourImages += f.frame.colour.has_value();
      summary.validPixels += f.validPixels;
      summary.seconds = elapsed();
      if (progress) progress(f, summary);
    });
    summary.bytes = tum.close();
    summary.seconds = elapsed();
    return summary;
  }

  RosDepthOut out(path, format, options, config.colour);
  const int64_t firstNs = std::llround(config.frameTime(0) * 1e9);
  const ros::TransformStamped statics[2] = {
      transform(firstNs, "map", "odom", TrajectorySample{}),
      transform(firstNs, "base_link", options.opticalFrame, depthCameraMount(config))};
  out.tf(true, statics);
  summary.transforms += 2;
  generateDepthFrames(scene, config, [&](const GeneratedDepthFrame& f) {
    const ros::TransformStamped base = transform(f.stampNs, "odom", "base_link", f.basePose);
    out.tf(false, std::span(&base, 1));  // the pose before the frame it places, as a driver publishes it
    out.frame(f);
    summary.colourImages += f.frame.colour.has_value();
    ++summary.transforms;
    ++summary.frames;
    summary.validPixels += f.validPixels;
    summary.seconds = elapsed();
    if (progress) progress(f, summary);
  });
  out.close();
  summary.bytes = std::filesystem::file_size(path);
  summary.seconds = elapsed();
  return summary;
}

}  // namespace voxen

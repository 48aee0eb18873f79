// Depth frames from a ROS 1 bag or an MCAP file: the depth topic's images, decoded, undistorted
// by the camera_info topic's camera, and posed through tf at each image's stamp; with colour
// asked for, each with the colour topic's image nearest its stamp (colour/recording_colour.hpp).
#include <optional>

#include "colour/recording_colour.hpp"

#include "depth/depth_source_impl.hpp"
#include "depth/depth_topics.hpp"
#include "recording/recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/depth_decode.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

namespace {

class RecordingDepthSource final : public DepthSource::Impl {
 public:
  RecordingDepthSource(const std::filesystem::path& path, const DepthSourceOptions& options) : maxRange_(options.maxRange) {
    if (!(options.maxRange >= 0))
      throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::maxRange", "maximum range",
                         "{} must be 0 (none) or positive, got " + formatNumber(options.maxRange));
    if (!options.cameraInfoFile.empty())
      throw Error(path.string() + ": a camera calibration file (" + options.cameraInfoFile.string() +
                  ") is for TUM RGB-D folders; a recording's camera comes from its camera_info topic");
    rec_ = openRecording(path);
    const std::vector<ImageTopic> images = describeImageTopics(*rec_);
    const ImageTopic& chosen = chooseDepthTopic(*rec_, images, options.depthTopic);
    const RecordingTopic& topic = rec_->topics()[chosen.topic];
    topic_ = topic.name;
    compressed_ = chosen.compressed;
    encoding_ = topicEncoding(*rec_, topic);
    const uint32_t one[] = {chosen.topic};
    messages_ = rec_->index(one);

    // The first image decodes (a colour topic named as the depth topic is refused here, by its
    // encoding), and its frame is the camera's (its camera_info's when the image names none).
    std::vector<uint8_t> bytes;
    rec_->read(messages_[0], bytes);
    const std::string first = where(0);
    if (compressed_) {
      const ros::CompressedImage m = ros::decodeCompressedImage(bytes, encoding_, first);
      decodeCompressedDepth(m, first);
      frame_ = frameName(m.frameId);
    } else {
      const ros::Image m = ros::decodeImage(bytes, encoding_, first);
      decodeDepthImage(m, first);
      frame_ = frameName(m.frameId);
    }
    const uint32_t infoTopic = chooseCameraInfoTopic(*rec_, topic.name, chosen.compressed, options.cameraInfoTopic);
    const ros::CameraInfo cameraInfo = readCameraInfo(*rec_, infoTopic);
    const std::string infoName = rec_->topics()[infoTopic].name;
    camera_ = makeDepthCamera(cameraInfo, path.string() + ": topic " + infoName + ", message 0");
    if (options.colour()) colour_.emplace(*rec_, images, topic.name, options, camera_);

    if (frame_.empty()) frame_ = frameName(cameraInfo.frameId);
    if (frame_.empty()) throw Error(first + ": header.frame_id is empty, and so is its camera_info's: no frame to pose");
    const TfData tf = loadTf(*rec_);
    chain_.emplace(resolveSensorChain(*rec_, tf, options.fixedFrame, frame_));

    info.format = rec_->formatName();
    info.topic = topic.name;
    info.messageType = topic.type;
    info.encoding = chosen.encoding;
    info.cameraInfo = infoName;
    info.distortion = camera_.distortion;
    info.poses = "tf (" + chainText(*chain_) + ")";
    info.intrinsics = camera_.intrinsics;
    info.images = messages_.size();
    info.poseStart = chain_->start();
    info.poseEnd = chain_->end();
    if (colour_) colour_->describe(info);
  }

  bool next(DepthFrame& frame) override {
    while (k_ < messages_.size()) {
      const size_t k = k_++;
      rec_->read(messages_[k], bytes_);
      const std::string at = where(k);
      int64_t stampNs = 0;
      std::string frameId;
      DepthImage image;
      if (compressed_) {
        const ros::CompressedImage m = ros::decodeCompressedImage(bytes_, encoding_, at);
        stampNs = m.stampNs, frameId = m.frameId;
        image = decodeCompressedDepth(m, at);
      } else {
        const ros::Image m = ros::decodeImage(bytes_, encoding_, at);
        stampNs = m.stampNs, frameId = m.frameId;
        image = decodeDepthImage(m, at);
      }
      if (!frameId.empty() && frameName(frameId) != frame_)
        throw Error(at + ": header.frame_id is '" + frameId + "', the first image's '" + frame_ +
                    "': one depth topic, one camera frame");
      const double t = ros::stampSeconds(stampNs);
      if (stats.frames > 0 && t < lastTime_) {
        ++stats.skippedBackwards;
        continue;
      }
      const std::optional<RigidPose> pose = chain_->at(t, hint_);
      if (!pose) {
        ++stats.skippedOutsidePoses;
        continue;
      }
      applyDepthCamera(camera_, image, at);
      stats.pixelsBeyondMaxRange += applyMaxRange(image, maxRange_);
      frame.time = t;
      frame.depth = std::move(image);
      frame.intrinsics = camera_.intrinsics;
      frame.position = pose->translation;
      frame.orientation = pose->rotation;
      frame.colour.reset();
      if (colour_) {
        frame.colour = colour_->at(stampNs);
        ++(frame.colour ? stats.framesWithColour : stats.framesWithoutColour);
      }
      lastTime_ = t;
      ++stats.frames;
      return true;
    }
    return false;
  }

 private:
  std::string where(size_t k) const {
    return rec_->path().string() + ": topic " + topic_ + ", message " + std::to_string(k) + " of " +
           std::to_string(messages_.size());
  }

  std::unique_ptr<Recording> rec_;
  std::string topic_, frame_;
  bool compressed_ = false;
  ros::MessageEncoding encoding_ = ros::MessageEncoding::Ros1;
  std::vector<RecordedMessage> messages_;
  DepthCamera camera_;
  std::optional<TfBuffer::Chain> chain_;
  std::optional<RecordingColour> colour_;  // after camera_, which it refers to
  double maxRange_ = 0.0, lastTime_ = 0.0;
  size_t k_ = 0, hint_ = 0;
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::unique_ptr<DepthSource::Impl> openRecordingDepth(const std::filesystem::path& path, const DepthSourceOptions& options) {
  return std::make_unique<RecordingDepthSource>(path, options);
}

}  // namespace voxen::detail

#include "depth/depth_topics.hpp"

#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/colour_decode.hpp"
#include "voxen/input/depth_decode.hpp"

namespace voxen::detail {

namespace {

std::string depthTopicList(const Recording& rec, const std::vector<ImageTopic>& images) {
  std::string list;
  for (const ImageTopic& t : images)
    if (t.depth) list += (list.empty() ? "" : ", ") + rec.topics()[t.topic].name + " (" + t.encoding + ")";
  return list.empty() ? "none" : list;
}

std::string cameraInfoList(const Recording& rec) {
  std::string list;
  for (const RecordingTopic& t : rec.topics())
    if (isCameraInfoTopic(t)) list += (list.empty() ? "" : ", ") + t.name;
  return list.empty() ? "none" : list;
}

std::string numbers(std::span<const double> values) {
  std::string text;
  for (const double v : values) text += (text.empty() ? "" : " ") + formatNumber(v);
  return text;
}

}  // namespace

bool isImageTopic(const RecordingTopic& t) { return t.type == ros::kImageRos1Type || t.type == ros::kImageRos2Type; }
bool isCompressedImageTopic(const RecordingTopic& t) {
  return t.type == ros::kCompressedImageRos1Type || t.type == ros::kCompressedImageRos2Type;
}
bool isCameraInfoTopic(const RecordingTopic& t) {
  return t.type == ros::kCameraInfoRos1Type || t.type == ros::kCameraInfoRos2Type;
}

std::vector<ImageTopic> describeImageTopics(Recording& rec) {
  std::vector<ImageTopic> out;
  std::vector<uint8_t> bytes;
  for (uint32_t i = 0; i < rec.topics().size(); ++i) {
    const RecordingTopic& topic = rec.topics()[i];
    if (!isImageTopic(topic) && !isCompressedImageTopic(topic)) continue;
    const uint32_t one[] = {i};
    const std::vector<RecordedMessage> messages = rec.index(one);
    if (messages.empty()) continue;
    ImageTopic t;
    t.topic = i;
    t.compressed = isCompressedImageTopic(topic);
    const std::string where = rec.path().string() + ": topic " + topic.name + ", message 0";
    try {
      rec.read(messages[0], bytes);
      const ros::MessageEncoding encoding = topicEncoding(rec, topic);
      if (t.compressed) {
        const ros::CompressedImage m = ros::decodeCompressedImage(bytes, encoding, where);
        t.encoding = m.format;
        t.depth = isCompressedDepthFormat(m.format);
        t.colour = !t.depth;
        int bitDepth = 0, colour = 0;
        if (t.depth && m.data.size() > 12) pngSize(m.data.subspan(12), t.width, t.height, bitDepth, colour);
        if (t.colour) pngSize(m.data, t.width, t.height, bitDepth, colour);  // 0 x 0 for JPEG
      } else {
        const ros::Image m = ros::decodeImage(bytes, encoding, where);
        t.encoding = m.encoding;
        t.width = m.width, t.height = m.height;
        t.depth = m.encoding == "16UC1" || m.encoding == "32FC1";
        t.colour = isColourEncoding(m.encoding);
      }
    } catch (const Error& e) {
      t.error = e.what();
    }
    out.push_back(std::move(t));
  }
  return out;
}

const ImageTopic& chooseDepthTopic(const Recording& rec, const std::vector<ImageTopic>& images, const std::string& wanted) {
  const std::string name = rec.path().string();
  if (!wanted.empty()) {
    for (const ImageTopic& t : images)
      if (rec.topics()[t.topic].name == wanted) return t;
    std::string type;
    for (const RecordingTopic& t : rec.topics())
      if (t.name == wanted) type = t.type;
    throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::depthTopic", "depth topic",
                       name + ": {} " + wanted + (type.empty() ? ": no such topic (or no message on it)" : " holds " + type +
                       ", not sensor_msgs/Image or sensor_msgs/CompressedImage") + "; its depth image topics: " +
                       depthTopicList(rec, images));
  }
  const ImageTopic* chosen = nullptr;
  size_t count = 0;
  for (const ImageTopic& t : images)
    if (t.depth) chosen = &t, ++count;
  if (count == 0) {
    std::string others;
    for (const ImageTopic& t : images)
      others += (others.empty() ? "" : ", ") + rec.topics()[t.topic].name + " (" + (t.error.empty() ? t.encoding : t.error) + ")";
    throw Error(name + ": holds no depth image topic (sensor_msgs/Image of encoding 16UC1 or 32FC1, or a compressedDepth "
                "sensor_msgs/CompressedImage)" + (others.empty() ? std::string() : "; its image topics: " + others));
  }
  if (count > 1)
    throw SettingError(SettingError::Kind::Change, "DepthSourceOptions::depthTopic", "depth topic",
                       name + ": holds " + std::to_string(count) + " depth image topics (" + depthTopicList(rec, images) +
                           "): name one as {}");
  return *chosen;
}

std::string cameraInfoSibling(const std::string& imageTopic, bool compressed) {
  std::string base = imageTopic;
  if (compressed) {
    const size_t slash = base.rfind('/');
    if (slash != std::string::npos && slash > 0) base = base.substr(0, slash);  // ".../image_raw/compressedDepth"
  }
  const size_t slash = base.rfind('/');
  return slash == std::string::npos ? "camera_info" : base.substr(0, slash + 1) + "camera_info";
}

uint32_t chooseCameraInfoTopic(const Recording& rec, const std::string& imageTopic, bool compressed, const std::string& wanted) {
  const std::string name = rec.path().string();
  const std::string topic = wanted.empty() ? cameraInfoSibling(imageTopic, compressed) : wanted;
  for (uint32_t i = 0; i < rec.topics().size(); ++i) {
    const RecordingTopic& t = rec.topics()[i];
    if (t.name != topic) continue;
    if (!isCameraInfoTopic(t))
      throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::cameraInfoTopic", "camera_info topic",
                         name + ": {} " + topic + " holds " + t.type + ", not sensor_msgs/CameraInfo; its CameraInfo topics: " +
                             cameraInfoList(rec));
    return i;
  }
  throw SettingError(wanted.empty() ? SettingError::Kind::Change : SettingError::Kind::Invalid,
                     "DepthSourceOptions::cameraInfoTopic", "camera_info topic",
                     name + ": no camera_info for " + imageTopic + ": " +
                         (wanted.empty() ? "its sibling " + topic + " is not in the recording" : "{} " + topic + " is not in the recording") +
                         "; its CameraInfo topics: " + cameraInfoList(rec) + (wanted.empty() ? "; name one as {}" : ""));
}

ros::CameraInfo readCameraInfo(Recording& rec, uint32_t topic) {
  const RecordingTopic& t = rec.topics()[topic];
  const uint32_t one[] = {topic};
  const std::vector<RecordedMessage> messages = rec.index(one);
  const std::string at = rec.path().string() + ": topic " + t.name;
  if (messages.empty()) throw Error(at + ": holds no messages, so the depth camera has no calibration");
  const ros::MessageEncoding encoding = topicEncoding(rec, t);
  std::vector<uint8_t> bytes;
  ros::CameraInfo first;
  for (size_t k = 0; k < messages.size(); ++k) {
    rec.read(messages[k], bytes);
    const std::string where = at + ", message " + std::to_string(k);
    ros::CameraInfo m = ros::decodeCameraInfo(bytes, encoding, where);
    if (k == 0) {
      first = std::move(m);
      continue;
    }
    const char* field = m.width != first.width || m.height != first.height ? "width/height"
                        : m.distortionModel != first.distortionModel      ? "distortion_model"
                        : m.d != first.d                                   ? "D"
                        : m.k != first.k                                   ? "K"
                        : m.r != first.r                                   ? "R"
                        : m.p != first.p                                   ? "P"
                                                                           : nullptr;
    if (field)
      throw Error(where + ": " + field + " differs from message 0's: the camera's calibration changes during the "
                  "recording, and Voxen takes one calibration per camera");
  }
  return first;
}

std::string cameraInfoText(const ros::CameraInfo& m) {
  std::string text = std::to_string(m.width) + " x " + std::to_string(m.height) + ", K fx " + formatNumber(m.k[0]) +
                     " fy " + formatNumber(m.k[4]) + " cx " + formatNumber(m.k[2]) + " cy " + formatNumber(m.k[5]);
  bool distorted = false;
  for (const double v : m.d) distorted = distorted || v != 0.0;
  text += distorted ? ", " + m.distortionModel + " D = " + numbers(m.d) : ", no distortion";
  return text;
}

}  // namespace voxen::detail

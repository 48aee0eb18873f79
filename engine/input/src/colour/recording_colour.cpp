#include "colour/recording_colour.hpp"

#include <algorithm>
#include <cmath>

#include "colour/colour_topics.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::detail {

int64_t colourToleranceNs(double seconds) {
  if (!(seconds >= 0.0 && seconds <= 3600.0))
    throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::colourMaxTimeDifference",
                       "colour time tolerance", "{} must be from 0 to 3600 s, got " + formatNumber(seconds));
  return std::llround(seconds * 1e9);
}

RecordingColour::RecordingColour(Recording& rec, const std::vector<ImageTopic>& images, const std::string& depthTopic,
                                 const DepthSourceOptions& options, const DepthCamera& camera)
    : rec_(rec), camera_(camera), toleranceNs_(colourToleranceNs(options.colourMaxTimeDifference)) {
  const ImageTopic& chosen = chooseColourTopic(rec, images, depthTopic, options.colourTopic);
  const RecordingTopic& topic = rec.topics()[chosen.topic];
  topic_ = topic.name;
  type_ = topic.type;
  encodingText_ = chosen.encoding;
  compressed_ = chosen.compressed;
  encoding_ = topicEncoding(rec, topic);
  const uint32_t one[] = {chosen.topic};
  messages_ = rec.index(one);
  // The first image decodes (an encoding or a JPEG is refused here, by name) and is the depth
  // camera's size: colour registered to depth, never resized.
  Pending first;
  rec.read(messages_[0], first.bytes);
  const ColourImage image = decode(first);
  if (image.width != camera.sourceWidth || image.height != camera.sourceHeight)
    throw Error(rec.path().string() + ": the colour topic " + topic_ + "'s images are " + std::to_string(image.width) +
                " x " + std::to_string(image.height) + ", the depth topic " + depthTopic + "'s " +
                std::to_string(camera.sourceWidth) + " x " + std::to_string(camera.sourceHeight) +
                ": colour must be registered to the depth image, pixel for pixel, and Voxen does not resize it (record "
                "the depth aligned to the colour camera, as a RealSense's aligned_depth_to_color, or name a colour topic "
                "of the depth image's size)");
}

std::string RecordingColour::where(size_t k) const {
  return rec_.path().string() + ": topic " + topic_ + ", message " + std::to_string(k) + " of " +
         std::to_string(messages_.size());
}

ColourImage RecordingColour::decode(const Pending& p) const {
  const std::string at = where(p.index);
  if (compressed_) return decodeCompressedColour(ros::decodeCompressedImage(p.bytes, encoding_, at), at);
  return decodeColourImage(ros::decodeImage(p.bytes, encoding_, at), at);
}

int64_t RecordingColour::stampOf(const std::vector<uint8_t>& bytes, size_t k) const {
  // The decoders point into the bytes: only the header is copied.
  const std::string at = where(k);
  return compressed_ ? ros::decodeCompressedImage(bytes, encoding_, at).stampNs : ros::decodeImage(bytes, encoding_, at).stampNs;
}

std::optional<ColourImage> RecordingColour::at(int64_t stampNs) {
  // Read until an image stamped beyond the tolerance after this depth image (or the end).
  while (next_ < messages_.size() && !(readAny_ && latestRead_ > stampNs + toleranceNs_)) {
    Pending p;
    p.index = next_++;
    rec_.read(messages_[p.index], p.bytes);
    p.stampNs = stampOf(p.bytes, p.index);
    latestRead_ = readAny_ ? std::max(latestRead_, p.stampNs) : p.stampNs;
    readAny_ = true;
    // Kept only if this or a later depth frame could take it: colour stamped long before the
    // depth (another clock) is passed over without holding its bytes.
    if (p.stampNs >= stampNs - toleranceNs_) window_.push_back(std::move(p));
  }
  // Images before the tolerance ahead of this stamp serve no later depth frame.
  std::erase_if(window_, [&](const Pending& p) { return p.stampNs < stampNs - toleranceNs_; });
  std::vector<int64_t> stamps;
  stamps.reserve(window_.size());
  for (const Pending& p : window_) stamps.push_back(p.stampNs);
  const std::optional<size_t> k = nearestStamp(stamps, stampNs, toleranceNs_);
  if (!k) return std::nullopt;
  ColourImage image = decode(window_[*k]);
  applyDepthCamera(camera_, image, where(window_[*k].index));
  return image;
}

void RecordingColour::describe(DepthSourceInfo& info) const {
  info.colourTopic = topic_;
  info.colourType = type_;
  info.colourEncoding = encodingText_;
  info.colourImages = messages_.size();
}

}  // namespace voxen::detail

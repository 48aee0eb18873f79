#include "colour/colour_topics.hpp"

#include <algorithm>
#include <cstdlib>

#include "voxen/host/error.hpp"
#include "voxen/input/colour_decode.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen::detail {

namespace {

// Chosen without being named: colour encodings and PNG/JPEG CompressedImages, not mono8.
bool candidate(const ImageTopic& t) { return t.colour && (t.compressed || isChosenColourEncoding(t.encoding)); }

// The topic's namespace parts: "/camera/depth/image_rect_raw" -> {"camera", "depth"}.
std::vector<std::string> namespaceOf(const std::string& topic) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= topic.size()) {
    const size_t slash = topic.find('/', start);
    if (slash == std::string::npos) break;
    if (slash > start) parts.push_back(topic.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

size_t sharedParts(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

std::string listOf(const Recording& rec, const std::vector<const ImageTopic*>& topics) {
  std::string list;
  for (const ImageTopic* t : topics) {
    list += (list.empty() ? "" : ", ") + rec.topics()[t->topic].name + " (" + t->encoding;
    if (t->width > 0) list += ", " + std::to_string(t->width) + " x " + std::to_string(t->height);
    list += ")";
  }
  return list.empty() ? "none" : list;
}

}  // namespace

std::string colourTopicList(const Recording& rec, const std::vector<ImageTopic>& images) {
  std::vector<const ImageTopic*> colour;
  for (const ImageTopic& t : images)
    if (t.colour) colour.push_back(&t);
  return listOf(rec, colour);
}

const ImageTopic& chooseColourTopic(const Recording& rec, const std::vector<ImageTopic>& images, const std::string& depthTopic,
                                    const std::string& wanted) {
  const std::string name = rec.path().string();
  if (!wanted.empty()) {
    for (const ImageTopic& t : images) {
      if (rec.topics()[t.topic].name != wanted) continue;
      if (t.depth)
        throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::colourTopic", "colour topic",
                           name + ": {} " + wanted + " holds depth images (" + t.encoding + "), not colour; its colour image "
                           "topics: " + colourTopicList(rec, images));
      return t;  // an encoding that is not colour is refused by name when its first image decodes
    }
    std::string type;
    for (const RecordingTopic& t : rec.topics())
      if (t.name == wanted) type = t.type;
    throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::colourTopic", "colour topic",
                       name + ": {} " + wanted + (type.empty() ? ": no such topic (or no message on it)" : " holds " + type +
                       ", not sensor_msgs/Image or sensor_msgs/CompressedImage") + "; its colour image topics: " +
                       colourTopicList(rec, images));
  }
  std::vector<const ImageTopic*> found;
  for (const ImageTopic& t : images)
    if (candidate(t)) found.push_back(&t);
  if (found.empty())
    throw Error(name + ": holds no colour image topic (sensor_msgs/Image of encoding rgb8, bgr8, rgba8 or bgra8, or a "
                "PNG sensor_msgs/CompressedImage) for the depth images' colour" +
                (colourTopicList(rec, images) == "none" ? std::string() : "; mono8 topics are read when named: " +
                 colourTopicList(rec, images)));
  // A raw topic before its image_transport children (".../image_raw/compressed").
  std::vector<const ImageTopic*> raw;
  for (const ImageTopic* t : found) {
    const std::string& topic = rec.topics()[t->topic].name;
    const bool child = std::any_of(found.begin(), found.end(), [&](const ImageTopic* other) {
      const std::string& parent = rec.topics()[other->topic].name;
      return other != t && topic.size() > parent.size() && topic.compare(0, parent.size(), parent) == 0 && topic[parent.size()] == '/';
    });
    if (!child) raw.push_back(t);
  }
  // The nearest to the depth topic's namespace ("/camera/" of "/camera/depth/image_rect_raw").
  const std::vector<std::string> depthSpace = namespaceOf(depthTopic);
  size_t best = 0;
  std::vector<const ImageTopic*> nearest;
  for (const ImageTopic* t : raw) {
    const size_t shared = sharedParts(depthSpace, namespaceOf(rec.topics()[t->topic].name));
    if (nearest.empty() || shared > best) nearest.clear(), best = shared;
    if (shared == best) nearest.push_back(t);
  }
  if (nearest.size() == 1) return *nearest.front();
  throw SettingError(SettingError::Kind::Change, "DepthSourceOptions::colourTopic", "colour topic",
                     name + ": holds " + std::to_string(found.size()) + " colour image topics (" + listOf(rec, found) +
                         "), none nearer the depth topic " + depthTopic + " than the others: name one as {}");
}

std::optional<size_t> nearestStamp(std::span<const int64_t> stamps, int64_t t, int64_t tolerance) {
  std::optional<size_t> best;
  for (size_t i = 0; i < stamps.size(); ++i) {
    const int64_t d = std::llabs(stamps[i] - t);
    if (d > tolerance) continue;
    if (!best) {
      best = i;
      continue;
    }
    const int64_t b = std::llabs(stamps[*best] - t);
    if (d < b || (d == b && stamps[i] < stamps[*best])) best = i;
  }
  return best;
}

}  // namespace voxen::detail

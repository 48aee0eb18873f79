// `voxen inspect` of a ROS 1 bag or an MCAP file: topics with types and counts, the tf tree,
// the first cloud's fields, and what `voxen map` would take by default (or why it cannot).
#include <algorithm>
#include <cstdio>

#include "point_source.hpp"
#include "recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/io/cloud_decoder.hpp"
#include "voxen/io/trajectory.hpp"

namespace voxen::detail {

namespace {

std::string countText(uint64_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// One line per link, from the roots down (by depth, then name), as a reader draws a tree.
void describeTf(const TfBuffer& tf, RecordingInfo& info) {
  std::vector<std::pair<int, std::string>> links;
  for (const std::string& frame : tf.frames()) {
    int depth = 0;
    for (auto p = tf.parentOf(frame); p; p = tf.parentOf(*p)) ++depth;
    if (depth > 0) links.emplace_back(depth, frame);
  }
  std::sort(links.begin(), links.end());
  for (const auto& [depth, frame] : links)
    info.frames.push_back(*tf.parentOf(frame) + " -> " + frame +
                          (tf.isStatic(frame) ? " (static)" : " (moving, " + countText(tf.stamps(frame), "stamp") + ")"));
}

}  // namespace

void inspectRosRecording(const std::filesystem::path& path, RecordingInfo& info) {
  std::unique_ptr<Recording> rec = openRecording(path);
  uint64_t messages = 0;
  for (const RecordingTopic& t : rec->topics()) {
    info.topics.push_back({t.name, t.type, t.encoding, t.messages});
    messages += t.messages;
  }
  info.layout = countText(rec->topics().size(), "topic") + ", " + countText(messages, "message");
  if (const auto span = rec->timeSpan()) info.times = std::pair(ros::stampSeconds(span->first), ros::stampSeconds(span->second));

  // The tf tree, whatever the clouds say.
  std::optional<TfBuffer> tf;
  try {
    size_t transforms = 0;
    tf = loadTf(*rec, transforms);
    describeTf(*tf, info);
    info.notes.push_back("tf: " + countText(transforms, "transform") + " over " + countText(tf->frames().size(), "frame"));
  } catch (const Error& e) {
    info.notes.push_back(std::string("tf: ") + e.what());
  }

  // The cloud topic and its first cloud.
  try {
    const CloudTopicChoice choice = chooseCloudTopic(*rec, "");
    const RecordingTopic& topic = rec->topics()[choice.topic];
    info.cloudTopic = topic.name;
    const uint32_t topics[] = {choice.topic};
    const std::vector<RecordedMessage> clouds = rec->index(topics);
    if (clouds.empty()) throw Error(path.string() + ": topic " + topic.name + " holds no messages");
    std::vector<uint8_t> bytes;
    rec->read(clouds[0], bytes);
    const std::string where = path.string() + ": topic " + topic.name + ", cloud message 0";
    const ros::PointCloud2 cloud = ros::decodePointCloud2(bytes, choice.encoding, where);
    for (const ros::PointField& f : cloud.fields)
      info.fields.push_back({f.name, ros::pointFieldTypeName(f.datatype) + (f.count > 1 ? " x " + std::to_string(f.count) : "")});
    info.points = uint64_t(cloud.width) * cloud.height * clouds.size();
    info.notes.push_back("points: " + std::to_string(clouds.size()) + " clouds of " + topic.name + " x " +
                         std::to_string(uint64_t(cloud.width) * cloud.height) + " points (the first cloud's " +
                         std::to_string(cloud.height) + " x " + std::to_string(cloud.width) + ")");
    const ros::CloudLayout layout = ros::chooseCloudLayout(cloud, where);
    info.timeField = layout.hasTime ? layout.timeReport : "header.stamp (the clouds have no time field)";
    info.intensityField = layout.hasIntensity ? layout.intensity.name : "";
    info.sensorFrame = cloud.frameId;
    if (!tf) {
      info.withoutTrajectory = "the clouds of " + topic.name + " need poses: the recording has no tf; give --trajectory";
      return;
    }
    info.fixedFrame = tf->rootOf(cloud.frameId);
    const TfBuffer::Chain chain = tf->chain(info.fixedFrame, cloud.frameId);
    std::string chainText;
    for (const std::string& frame : chain.path()) chainText += (chainText.empty() ? "" : " -> ") + frame;
    info.origins = "tf (" + chainText + ", poses from " + formatTime(chain.start()) + " to " + formatTime(chain.end()) + " s)";
  } catch (const Error& e) {
    info.withoutTrajectory = e.what();
  }
}

}  // namespace voxen::detail

// `voxen inspect` of a ROS 1 bag or an MCAP file: topics with types and counts, the tf tree,
// the first cloud's fields, and what `voxen map` would take by default (or why it cannot).
#include <algorithm>
#include <cstdio>

#include "point_source.hpp"
#include "depth/depth_inspect.hpp"
#include "recording/recording.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

namespace {

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
  std::optional<TfData> tf;
  std::string tfError;  // why there is none
  try {
    tf = loadTf(*rec);
    describeTf(tf->tf, info);
    info.notes.push_back("tf: " + countText(tf->transforms, "transform") + " over " + countText(tf->tf.frames().size(), "frame"));
    if (!tf->refused.empty()) info.notes.push_back("tf: " + tf->refusedNote());
  } catch (const Error& e) {
    tfError = e.what();
    info.notes.push_back(std::string("tf: ") + e.what());
  }

  // Depth images (and their cameras), whatever the clouds say.
  describeDepthTopics(*rec, info);

  // The cloud topic and its first cloud.
  try {
    const CloudTopicChoice choice = chooseCloudTopic(*rec, "");
    const RecordingTopic& topic = rec->topics()[choice.topic];
    info.cloudTopic = topic.name;
    const uint32_t topics[] = {choice.topic};
    const std::vector<RecordedMessage> clouds = rec->index(topics);
    const TopicClouds cloud = chooseTopicLayout(*rec, clouds, choice.encoding, topic.name);
    for (const ros::PointField& f : cloud.fields)
      info.fields.push_back({f.name, ros::pointFieldTypeName(f.datatype) + (f.count > 1 ? " x " + std::to_string(f.count) : "")});
    info.points = cloud.pointsPerCloud * clouds.size();
    info.notes.push_back("points: " + countText(clouds.size(), "cloud") + " of " + topic.name + " x " +
                         countText(cloud.pointsPerCloud, "point") + " (the first cloud with points: " +
                         formatCount(cloud.height) + " x " + formatCount(cloud.width) + ")");
    const ros::CloudLayout& layout = cloud.layout;
    info.timeField = layout.hasTime ? layout.timeReport : "header.stamp (the clouds have no time field)";
    info.intensityField = layout.hasIntensity ? layout.intensity.name : "";
    info.sensorFrame = frameName(cloud.frameId);
    if (!tf) {
      info.withoutTrajectory = "the clouds of " + topic.name + " need poses, and " + tfError;
      return;
    }
    const TfBuffer::Chain chain = resolveSensorChain(*rec, *tf, "", info.sensorFrame);
    info.fixedFrame = chain.path().front();
    if (std::string conflicts = tf->conflictWarning(chain); !conflicts.empty()) info.notes.push_back(conflicts);
    info.origins = "tf (" + chainText(chain) + ", poses from " + formatTime(chain.start()) + " to " + formatTime(chain.end()) + " s)";
  } catch (const Error& e) {
    info.withoutTrajectory = e.what();
  }
}

}  // namespace voxen::detail

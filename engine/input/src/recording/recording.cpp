// Opening a recording by its content, and what is common to bags and MCAP files: which
// topics hold clouds and tf, and which serialization a topic's messages are in.
#include "recording/recording.hpp"

#include <atomic>

#include <algorithm>
#include <optional>

#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/input/input_format.hpp"
#include "voxen/input/ros_bag_input.hpp"

namespace voxen::detail {

namespace {

std::string listTopics(const Recording& rec, bool cloudsOnly) {
  std::string list;
  for (const RecordingTopic& t : rec.topics()) {
    if (cloudsOnly && !isPointCloud2(t)) continue;
    list += (list.empty() ? "" : ", ") + t.name + (cloudsOnly ? "" : " (" + t.type + ")");
  }
  return list.empty() ? "none" : list;
}

// Set once by enableRosBagInput() (voxen_rosbag), read by every opening thread.
std::atomic<RecordingOpener> rosBagOpener{nullptr};

}  // namespace

void setRosBagOpener(RecordingOpener opener) { rosBagOpener.store(opener); }

std::unique_ptr<Recording> openRecording(const std::filesystem::path& path) {
  const InputFormat format = detectInputFormat(path);
  if (format == InputFormat::RosBag) {
    const RecordingOpener open = rosBagOpener.load();
    if (open == nullptr) {
      throw Error(path.string() + ": is a ROS 1 bag, and this program reads no ROS 1 bags: bag input is the "
                  "library voxen::rosbag (built with VOXEN_ROSBAG=ON where librosbag-storage-dev is installed), "
                  "which a program links and turns on with voxen::enableRosBagInput(); MCAP recordings need "
                  "nothing of this");
    }
    return open(path);
  }
  if (format == InputFormat::Mcap) return openMcap(path);
  throw Error(path.string() + ": is a " + std::string(inputFormatName(format)) + ", not a ROS 1 bag or MCAP file");
}

std::span<const uint8_t> Recording::readInPlace(const RecordedMessage&) const {
  throw Error(path().string() + ": a " + formatName() + " is read one message at a time (readInPlace is for MCAP files)");
}

ros::MessageEncoding topicEncoding(const Recording& recording, const RecordingTopic& topic) {
  if (topic.encoding == "ros1") return ros::MessageEncoding::Ros1;
  if (topic.encoding == "cdr") return ros::MessageEncoding::Cdr;
  throw Error(recording.path().string() + ": topic " + topic.name + " holds messages encoded as '" + topic.encoding +
              "'; Voxen reads ROS 1 ('ros1') and ROS 2 ('cdr') messages");
}

bool isPointCloud2(const RecordingTopic& topic) {
  return topic.type == ros::kPointCloud2Ros1Type || topic.type == ros::kPointCloud2Ros2Type;
}

bool isTfMessage(const RecordingTopic& topic) {
  return topic.type == ros::kTfMessageRos1Type || topic.type == ros::kTfMessageRos2Type;
}

bool isTfTopic(const RecordingTopic& topic, bool& isStatic) {
  if (!isTfMessage(topic)) return false;
  if (topic.name == "/tf" || topic.name == "tf") {
    isStatic = false;
    return true;
  }
  if (topic.name == "/tf_static" || topic.name == "tf_static") {
    isStatic = true;
    return true;
  }
  return false;
}

CloudTopicChoice chooseCloudTopic(const Recording& rec, const std::string& wanted) {
  const std::string name = rec.path().string();
  const std::vector<RecordingTopic>& topics = rec.topics();
  std::optional<uint32_t> chosen;
  if (!wanted.empty()) {
    for (uint32_t i = 0; i < topics.size(); ++i)
      if (topics[i].name == wanted) chosen = i;
    if (!chosen)
      throw SettingError(SettingError::Kind::Invalid, "RecordingOptions::cloudTopic", "cloud topic",
                         name + ": {} " + wanted + ": no such topic; its topics: " + listTopics(rec, false));
    if (!isPointCloud2(topics[*chosen]))
      throw SettingError(SettingError::Kind::Invalid, "RecordingOptions::cloudTopic", "cloud topic",
                         name + ": {} " + wanted + " holds " + topics[*chosen].type +
                             ", not sensor_msgs/PointCloud2; its point cloud topics: " + listTopics(rec, true));
  } else {
    std::vector<uint32_t> clouds;
    for (uint32_t i = 0; i < topics.size(); ++i)
      if (isPointCloud2(topics[i])) clouds.push_back(i);
    if (clouds.empty())
      throw Error(name + ": holds no sensor_msgs/PointCloud2 topic; its topics: " + listTopics(rec, false));
    if (clouds.size() > 1)
      throw SettingError(SettingError::Kind::Change, "RecordingOptions::cloudTopic", "cloud topic",
                         name + ": holds " + std::to_string(clouds.size()) + " point cloud topics (" +
                             listTopics(rec, true) + "): name one as {}");
    chosen = clouds[0];
  }
  return {*chosen, topicEncoding(rec, topics[*chosen])};
}

TopicClouds chooseTopicLayout(Recording& rec, const std::vector<RecordedMessage>& clouds, ros::MessageEncoding encoding,
                              const std::string& topic, bool* allEmpty) {
  const std::string name = rec.path().string() + ": topic " + topic;
  if (clouds.empty()) throw Error(name + " holds no messages");
  std::vector<uint8_t> firstBytes, secondBytes;
  std::optional<ros::PointCloud2> first, second;
  std::string firstWhere;
  for (size_t k = 0; k < clouds.size() && !second; ++k) {
    std::vector<uint8_t>& bytes = first ? secondBytes : firstBytes;
    rec.read(clouds[k], bytes);
    const std::string where = name + ", cloud message " + std::to_string(k);
    ros::PointCloud2 cloud = ros::decodePointCloud2(bytes, encoding, where);
    if (uint64_t(cloud.width) * cloud.height == 0) continue;
    if (!first) {
      first = std::move(cloud);
      firstWhere = where;
    } else {
      second = std::move(cloud);
    }
    if (k >= 1000) break;  // enough to tell; the rest is read when mapping
  }
  if (!first && allEmpty) {
    *allEmpty = true;
    return {};
  }
  if (!first) throw Error(name + ": every one of its " + std::to_string(clouds.size()) + " clouds is empty");
  TopicClouds out;
  out.layout = ros::chooseCloudLayout(*first, firstWhere, second ? &*second : nullptr);
  out.frameId = first->frameId;
  out.width = first->width;
  out.height = first->height;
  out.pointsPerCloud = uint64_t(first->width) * first->height;
  out.fields = first->fields;
  return out;
}

// Every /tf and /tf_static message of the recording, in one buffer.
std::string frameName(const std::string& frame) { return !frame.empty() && frame[0] == '/' ? frame.substr(1) : frame; }

namespace {

bool onPath(const TfBuffer::Chain& chain, const std::string& frame) {
  return std::find(chain.path().begin(), chain.path().end(), frame) != chain.path().end();
}

// A link the chain walks: both its frames on the path (the path holds no other pair).
bool linkOnChain(const TfBuffer::Chain& chain, const TfConflict& c) { return onPath(chain, c.child) && onPath(chain, c.parent); }

std::string vectorText(const glm::dvec3& v) {
  return "(" + formatNumber(v.x) + ", " + formatNumber(v.y) + ", " + formatNumber(v.z) + ")";
}

}  // namespace

void TfData::requireOnChain(const TfBuffer::Chain& chain) const {
  for (const auto& [child, error] : refused)
    if (onPath(chain, child)) throw Error(error);
  for (const TfConflict& c : conflicts) {
    if (!linkOnChain(chain, c)) continue;
    const auto topic = topicOf.find(c.child);
    throw Error(file + ": topic " + (topic == topicOf.end() ? std::string("/tf") : topic->second) +
                ": two different transforms of frame '" + c.child + "' in '" + c.parent + "' at the same stamp " +
                formatNumber(stampSeconds(c.stampNs)) + " s (translations " + vectorText(c.first.translation) +
                " and " + vectorText(c.other.translation) + (c.stamps > 1 ? "; " + std::to_string(c.stamps) +
                " stamps of this link conflict" : std::string()) +
                "): the sensor's chain passes through this link, so its pose there is ambiguous (tf2 warns "
                "TF_REPEATED_DATA and keeps one); two nodes publishing the same transform?");
  }
}

std::string TfData::conflictWarning(const TfBuffer::Chain& chain) const {
  size_t links = 0, stamps = 0;
  const TfConflict* firstOff = nullptr;
  for (const TfConflict& c : conflicts) {
    if (linkOnChain(chain, c)) continue;
    ++links, stamps += c.stamps;
    if (!firstOff) firstOff = &c;
  }
  if (!firstOff) return {};
  return "tf: " + std::to_string(stamps) + " stamp" + (stamps == 1 ? "" : "s") + " of " + std::to_string(links) +
         " link" + (links == 1 ? "" : "s") + " off the sensor's chain carry two different transforms (the first: frame '" +
         firstOff->child + "' in '" + firstOff->parent + "' at " + formatNumber(stampSeconds(firstOff->stampNs)) +
         " s, translations " + vectorText(firstOff->first.translation) + " and " + vectorText(firstOff->other.translation) +
         "); the clouds do not use them";
}

std::string TfData::refusedNote() const {
  if (refused.empty()) return {};
  return std::to_string(refusedCount) + " tf transform" + (refusedCount == 1 ? "" : "s") +
         " of frames off the sensor's chain refused (the first: " + refused.front().second + ")";
}

TfData loadTf(Recording& rec) {
  TfData data;
  TfBuffer& tf = data.tf;
  std::vector<uint32_t> tfTopics;
  std::vector<bool> staticTopic(rec.topics().size(), false);
  for (uint32_t i = 0; i < rec.topics().size(); ++i) {
    bool isStatic = false;
    if (isTfTopic(rec.topics()[i], isStatic)) {
      tfTopics.push_back(i);
      staticTopic[i] = isStatic;
    }
  }
  if (tfTopics.empty())
    throw Error(rec.path().string() + ": has no /tf or /tf_static topic (tf2_msgs/TFMessage) to pose the clouds by; "
                "give a trajectory file instead");
  std::vector<uint8_t> bytes;
  uint64_t k = 0;
  for (const RecordedMessage& m : rec.index(tfTopics)) {
    const RecordingTopic& topic = rec.topics()[m.topic];
    rec.read(m, bytes);
    const std::string where = rec.path().string() + ": topic " + topic.name + ", message " + std::to_string(k++);
    for (ros::TransformStamped t : ros::decodeTfMessage(bytes, topicEncoding(rec, topic), where)) {
      // tf2 strips a leading '/' (ROS 1 frames were often written "/base_link").
      t.parentFrame = frameName(t.parentFrame);
      t.childFrame = frameName(t.childFrame);
      try {
        tf.add(t, staticTopic[m.topic]);
        ++data.transforms;
        data.topicOf.try_emplace(t.childFrame, topic.name);
      } catch (const Error& e) {
        // A bad transform (a second parent, a NaN) matters only on the sensor's chain: kept
        // aside, and an error once the chain is known to pass through its frame.
        ++data.refusedCount;
        if (data.refused.size() < 64) data.refused.emplace_back(t.childFrame, where + ": " + e.what());
      }
    }
  }
  data.conflicts = tf.conflicts();
  data.file = rec.path().string();
  return data;
}

TfBuffer::Chain resolveSensorChain(const Recording& rec, const TfData& tf, const std::string& fixedFrame,
                                   const std::string& sensorFrame) {
  const std::string sensor = frameName(sensorFrame);
  std::optional<TfBuffer::Chain> chain;
  try {
    chain = tf.tf.chain(fixedFrame.empty() ? tf.tf.rootOf(sensor) : frameName(fixedFrame), sensor);
  } catch (const Error& e) {
    // The frames' errors name frames only: say whose tf they are, and what was set aside.
    const std::string refused = tf.refusedNote();
    throw Error(rec.path().string() + ": " + e.what() + (refused.empty() ? "" : "; " + refused));
  }
  tf.requireOnChain(*chain);
  return std::move(*chain);
}

std::string chainText(const TfBuffer::Chain& chain) {
  std::string text;
  for (const std::string& frame : chain.path()) text += (text.empty() ? "" : " -> ") + frame;
  return text;
}

}  // namespace voxen::detail

namespace voxen {

bool rosBagInputEnabled() { return detail::rosBagOpener.load() != nullptr; }

}  // namespace voxen

// ROS 1 bags through Debian's librosbag-storage (no ROS installation at run time): its View
// gives every message of the chosen topics in time order with its connection (topic, type,
// MD5 sum); a message is copied out as its serialized bytes and decoded by Voxen
// (ros_messages.hpp), so no message headers of ROS are needed at build time either.
#include <rosbag/bag.h>
#include <rosbag/view.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "recording/recording.hpp"
#include "voxen/input/ros_bag_input.hpp"
#include "voxen/input/ros_bag_open.hpp"
#include "voxen/host/error.hpp"

namespace voxen::detail {

namespace {


int64_t nanoseconds(const ::ros::Time& t) { return int64_t(t.sec) * 1000000000 + int64_t(t.nsec); }

class RosBagRecording final : public Recording {
 public:
  explicit RosBagRecording(const std::filesystem::path& path) : path_(path), bytes_(std::filesystem::file_size(path)) {
    checkRosBagStructure(path);
    makeBag(bag_, path);
    try {
      bag_->open(path.string(), rosbag::bagmode::Read);
      rosbag::View all(*bag_);
      std::map<std::string, uint32_t> byTopic;
      for (const rosbag::ConnectionInfo* c : all.getConnections()) {
        auto [it, added] = byTopic.emplace(c->topic, uint32_t(topics_.size()));
        if (added) topics_.push_back({c->topic, c->datatype, "ros1", 0});
        else if (topics_[it->second].type != c->datatype)
          throw Error(path.string() + ": topic " + c->topic + " is recorded with two types, " +
                      topics_[it->second].type + " and " + c->datatype);
      }
      for (RecordingTopic& topic : topics_) {
        rosbag::View one(*bag_, rosbag::TopicQuery(topic.name));
        topic.messages = one.size();
      }
      if (all.size() > 0) span_ = {nanoseconds(all.getBeginTime()), nanoseconds(all.getEndTime())};
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      // rosbag's own errors, and the decompressors' and boost's under it.
      throw Error(path.string() + ": not a readable ROS 1 bag: " + e.what());
    }
  }

  const char* formatName() const override { return "ROS 1 bag"; }
  const std::filesystem::path& path() const override { return path_; }
  uint64_t fileBytes() const override { return bytes_; }
  const std::vector<RecordingTopic>& topics() const override { return topics_; }
  std::optional<std::pair<int64_t, int64_t>> timeSpan() const override { return span_; }

  std::vector<RecordedMessage> index(std::span<const uint32_t> topics) override {
    std::vector<std::string> names;
    for (const uint32_t t : topics) names.push_back(topics_.at(t).name);
    std::vector<RecordedMessage> out;
    try {
      rosbag::View view(*bag_, rosbag::TopicQuery(names));
      std::map<std::string, uint32_t> topicIndex;
      for (const uint32_t t : topics) topicIndex[topics_[t].name] = t;
      const uint64_t count = view.size();
      const uint64_t share = count > 0 ? bytes_ / count : 0;
      for (const rosbag::MessageInstance& m : view) {
        out.push_back({topicIndex.at(m.getTopic()), nanoseconds(m.getTime()), share, uint64_t(instances_.size())});
        instances_.push_back(m);
      }
    } catch (const std::exception& e) {
      throw Error(path_.string() + ": cannot index its messages: " + e.what());
    }
    return out;
  }

  void read(const RecordedMessage& message, std::vector<uint8_t>& out) override {
    const rosbag::MessageInstance& m = instances_.at(message.handle);
    try {
      out.resize(m.size());
      ::ros::serialization::OStream stream(out.data(), uint32_t(out.size()));
      m.write(stream);
    } catch (const std::exception& e) {
      // rosbag reports a short or corrupt chunk through BagException (and the decompressors
      // through their own runtime errors): either way the message cannot be had.
      throw Error(path_.string() + ": topic " + m.getTopic() + ", message at " + std::to_string(message.timeNs) +
                  " ns: cannot read it: " + e.what());
    }
  }

 private:
  std::filesystem::path path_;
  uint64_t bytes_ = 0;
  std::optional<rosbag::Bag> bag_;
  std::vector<RecordingTopic> topics_;
  std::optional<std::pair<int64_t, int64_t>> span_;
  std::vector<rosbag::MessageInstance> instances_;
};

}  // namespace

std::unique_ptr<Recording> openRosBag(const std::filesystem::path& path) {
  return std::make_unique<RosBagRecording>(path);
}

}  // namespace voxen::detail

namespace voxen {

void enableRosBagInput() { detail::setRosBagOpener(&detail::openRosBag); }

}  // namespace voxen


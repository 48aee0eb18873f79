// ROS 1 bags through Debian's librosbag-storage (no ROS installation at run time): its View
// gives every message of the chosen topics in time order with its connection (topic, type,
// MD5 sum); a message is copied out as its serialized bytes and decoded by Voxen
// (ros_messages.hpp), so no message headers of ROS are needed at build time either.
#include <rosbag/bag.h>
#include <rosbag/view.h>
#include <ros/serialization.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "recording.hpp"
#include "voxen/io/ros_bag_writer.hpp"
#include "voxen/host/error.hpp"

namespace {

// A message already serialized, written as it is: what rosbag::Bag::write needs to know of a
// type (its name, MD5 sum and definition) comes from the value, as for topic_tools' ShapeShifter.
struct RawRosMessage {
  const std::string* type;
  const std::string* md5;
  const std::string* definition;
  std::span<const uint8_t> bytes;
};

}  // namespace

namespace ros {
namespace message_traits {
template <>
struct IsMessage<RawRosMessage> : TrueType {};
template <>
struct MD5Sum<RawRosMessage> {
  static const char* value(const RawRosMessage& m) { return m.md5->c_str(); }
  static const char* value() { return "*"; }
};
template <>
struct DataType<RawRosMessage> {
  static const char* value(const RawRosMessage& m) { return m.type->c_str(); }
  static const char* value() { return "*"; }
};
template <>
struct Definition<RawRosMessage> {
  static const char* value(const RawRosMessage& m) { return m.definition->c_str(); }
};
}  // namespace message_traits
namespace serialization {
template <>
struct Serializer<RawRosMessage> {
  template <typename Stream>
  static void write(Stream& stream, const RawRosMessage& m) {
    if (!m.bytes.empty()) std::memcpy(stream.advance(uint32_t(m.bytes.size())), m.bytes.data(), m.bytes.size());
  }
  static uint32_t serializedLength(const RawRosMessage& m) { return uint32_t(m.bytes.size()); }
};
}  // namespace serialization
}  // namespace ros

namespace voxen::detail {

namespace {

// rosbag::Bag's constructor loads librosbag-storage's encryption plugin through pluginlib,
// which throws when the package's description files are missing (a copied binary on a machine
// without Debian's librosbag-storage4d): said in words that name the remedy.
void makeBag(std::optional<rosbag::Bag>& bag, const std::filesystem::path& path) {
  try {
    bag.emplace();
  } catch (const std::exception& e) {
    throw Error(path.string() + ": ROS 1 bags cannot be opened here: librosbag-storage's plugin description "
                "(share/rosbag_storage) was not found: " + e.what() +
                " (install Debian's librosbag-storage4d, or use a Voxen bundle, which carries it)");
  }
}

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

struct RosBagWriter::Impl {
  std::filesystem::path target, temporary;
  std::optional<rosbag::Bag> bag;
  bool closed = false;
};

RosBagWriter::RosBagWriter(const std::filesystem::path& path, const std::string& compression)
    : impl_(std::make_unique<Impl>()) {
  impl_->target = path;
  impl_->temporary = path.parent_path() / ("." + path.filename().string() + ".partial-" + std::to_string(::getpid()));
  detail::makeBag(impl_->bag, path);
  try {
    impl_->bag->open(impl_->temporary.string(), rosbag::bagmode::Write);
    if (compression == "lz4") impl_->bag->setCompression(rosbag::compression::LZ4);
    else if (compression == "bz2") impl_->bag->setCompression(rosbag::compression::BZ2);
    else if (!compression.empty()) throw Error(path.string() + ": unknown bag compression '" + compression + "' (lz4, bz2)");
  } catch (const rosbag::BagException& e) {
    throw Error(path.string() + ": cannot write a bag: " + e.what());
  }
}

RosBagWriter::~RosBagWriter() {
  if (impl_ && !impl_->closed) {
    try {
      impl_->bag->close();
    } catch (...) {
    }
    std::error_code ignored;
    std::filesystem::remove(impl_->temporary, ignored);
  }
}

void RosBagWriter::write(const std::string& topic, int64_t timeNs, const std::string& type, const std::string& md5,
                         const std::string& definition, std::span<const uint8_t> bytes) {
  // ROS 1 refuses receive times before ros::TIME_MIN (1 ns): a recording that starts at 0
  // (simulated time) is stored from 1 ns. Only the container's time moves; the stamps inside
  // the messages, which Voxen poses by, are the messages' own.
  ::ros::Time time;
  time.fromNSec(uint64_t(std::max<int64_t>(timeNs, 1)));
  try {
    impl_->bag->write(topic, time, RawRosMessage{&type, &md5, &definition, bytes});
  } catch (const rosbag::BagException& e) {
    throw Error(impl_->target.string() + ": cannot write topic " + topic + ": " + e.what());
  }
}

void RosBagWriter::close() {
  if (impl_->closed) return;
  try {
    impl_->bag->close();
  } catch (const rosbag::BagException& e) {
    throw Error(impl_->target.string() + ": cannot finish the bag: " + e.what());
  }
  std::filesystem::rename(impl_->temporary, impl_->target);
  impl_->closed = true;
}

}  // namespace voxen

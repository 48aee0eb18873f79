// Writing ROS 1 bags through librosbag-storage, from messages already serialized (tests and
// `voxen generate`); the reader is engine/input/src/recording/rosbag/ros_bag.cpp.
#include <ros/serialization.h>
#include <rosbag/bag.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

#include "voxen/host/error.hpp"
#include "voxen/input/ros_bag_open.hpp"
#include "voxen/testdata/ros_bag_writer.hpp"

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

// playRecording (voxen/live/recording_player.hpp): the recording's messages by their recorded
// times, each sent when the wall clock reaches its time divided by the rate.
#include "voxen/live/recording_player.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "voxen/input/recording_messages.hpp"
#include "voxen/input/ros_messages.hpp"

namespace voxen::live {

namespace {

using Clock = std::chrono::steady_clock;

bool isCloud(const detail::RecordingStream& s) {
  return s.type == ros::kPointCloud2Ros1Type || s.type == ros::kPointCloud2Ros2Type;
}

bool isStaticTf(const detail::RecordingStream& s) { return s.topic == "/tf_static" || s.topic == "tf_static"; }

FoxgloveChannel channelOf(const detail::RecordingStream& s) {
  const bool ros1 = s.encoding == "ros1";
  const bool cloud = isCloud(s);
  const std::string& schema = cloud ? (ros1 ? ros::pointCloud2Ros1Definition() : ros::pointCloud2Ros2Schema())
                                    : (ros1 ? ros::tfMessageRos1Definition() : ros::tfMessageRos2Schema());
  // Clouds and /tf: every message to every client (a client far behind misses the oldest);
  // /tf_static: state (each message kept under a key of its own), as ROS latches it, so a
  // client that joins late still gets every static transform.
  return FoxgloveChannel{.topic = s.topic, .schemaName = s.type, .schema = schema, .encoding = s.encoding,
                         .schemaEncoding = ros1 ? "ros1msg" : "ros2msg", .everyMessage = !isStaticTf(s)};
}

}  // namespace

PlayStats playRecording(const std::filesystem::path& recording, FoxgloveServer& server, const PlayOptions& options) {
  detail::RecordingMessages messages(recording);
  PlayStats stats;
  stats.leftOut = messages.leftOut();
  std::vector<ChannelId> channels;
  uint64_t cloudsInAll = 0;
  for (const detail::RecordingStream& s : messages.streams()) {
    channels.push_back(server.advertise(channelOf(s)));
    stats.topics.push_back(s.topic + " (" + s.type + ", " + s.encoding + ")");
    if (isCloud(s)) cloudsInAll += s.messages;
  }
  if (options.waitForSubscriberSeconds > 0.0) {
    const Clock::time_point until = Clock::now() + std::chrono::microseconds(int64_t(options.waitForSubscriberSeconds * 1e6));
    auto subscribed = [&] {
      for (size_t i = 0; i < channels.size(); ++i)
        if (isCloud(messages.streams()[i]) && server.subscribers(channels[i]) > 0) return true;
      return false;
    };
    while (!subscribed() && Clock::now() < until && !(options.stop && options.stop()))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stats.waitedInVain = !subscribed();
  }
  const Clock::time_point start = Clock::now();
  std::vector<uint8_t> bytes;
  do {
    messages.rewind();
    const Clock::time_point passStart = Clock::now();
    std::optional<int64_t> firstNs;
    size_t stream = 0;
    int64_t timeNs = 0;
    while (messages.next(stream, timeNs, bytes)) {
      if (options.stop && options.stop()) break;
      if (!firstNs) firstNs = timeNs;
      const double offset = double(timeNs - *firstNs) * 1e-9 / options.rate;
      const Clock::time_point due = passStart + std::chrono::microseconds(int64_t(offset * 1e6));
      std::this_thread::sleep_until(due);
      stats.maxLateMs = std::max(stats.maxLateMs, std::chrono::duration<double, std::milli>(Clock::now() - due).count());
      const std::string key = isStaticTf(messages.streams()[stream]) ? std::to_string(stats.messages) : std::string();
      server.publish(channels[stream], key, uint64_t(timeNs), std::string(bytes.begin(), bytes.end()));
      ++stats.messages;
      stats.bytes += bytes.size();
      if (isCloud(messages.streams()[stream])) {
        ++stats.clouds;
        if (options.progress) options.progress(stats.clouds, cloudsInAll);
      } else {
        ++stats.transforms;
      }
    }
  } while (options.loop && !(options.stop && options.stop()));
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Every client gets the last messages before the caller closes the server.
  server.drain(5.0);
  return stats;
}

}  // namespace voxen::live

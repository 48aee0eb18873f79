#pragma once
// voxen::live::LiveCloudSource: a robot's point clouds from a Foxglove WebSocket server
// (foxglove_bridge, `voxen play`), made into rays as `voxen map --input` makes a recording's:
// the same PointCloud2 decoding (ROS 1 "ros1" or ROS 2 "cdr" encoding), the same per-point
// time reading and deskew, tf from /tf and /tf_static, returns from the robot dropped.
//
//   voxen::live::LiveCloudSource source({.url = "ws://robot:8765", .cloudTopic = "/points"});
//   while (running) {
//     if (std::optional<voxen::live::LiveCloud> cloud = source.next(std::chrono::milliseconds(100)))
//       mapper.integrate(cloud->rays);
//     for (const std::string& line : source.takeEvents()) std::fprintf(stderr, "%s\n", line.c_str());
//   }
//
// Whole clouds: a cloud is made into rays only once every byte of it has arrived, and when
// the mapper falls behind, the oldest waiting clouds are dropped whole and counted
// (droppedBehind), so the map always follows the newest data with bounded memory.
// tf: transforms are kept for tfKeepSeconds (statics for ever); a cloud waits up to
// tfWaitSeconds after it arrives for tf to reach its last point's time, as tf2's message
// filter does, then is posed with what there is (points without a pose are skipped and
// counted, as for files); a cloud with no pose at all is dropped and counted (droppedNoPose),
// and so is a cloud stamped before the one made ahead of it (droppedBackwards), as the file
// reader drops it. The fields are read as the first cloud with points shows them (a file's
// reader may also look at the second, to tell offsets from absolute times near a clock's 0).
// Faults: a lost connection is retried (reported through takeEvents()); a server that is not
// a Foxglove server, or a cloud topic that does not appear within topicTimeoutSeconds, is an
// Error from next() naming the topics seen; a message that does not decode is counted
// (malformed) and skipped, with its first error kept for the report.
//
// Threads: next(), stats() and takeEvents() may be called from any thread, but next() by one
// thread at a time. The source reads on the client's thread and makes rays on a thread of its own.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/input/ray_source.hpp"
#include "voxen/live/sensor_pose.hpp"
#include "voxen/map/ray.hpp"

namespace voxen::live {

struct LiveInputOptions {
  std::string url;          // ws://HOST:PORT
  std::string cloudTopic;   // empty: the only sensor_msgs/PointCloud2 topic the server advertises
  std::string fixedFrame;   // empty: the root of the tf tree above the sensor frame
  bool deskew = true;       // each point posed at its own time (false: at the cloud's stamp)
  SensorExclusion exclusion{};
  size_t queueClouds = 8;           // clouds waiting for the mapper before the oldest is dropped
  double topicTimeoutSeconds = 10;  // connected, and no cloud on the topic within this: an Error
  double tfWaitSeconds = 0.5;       // how long a cloud waits for tf past its last point's time
  double tfKeepSeconds = 60;        // moving transforms older than this (by stamp) are forgotten
  bool reconnect = true;
};

struct LiveCloud {
  std::vector<Ray> rays;
  RayLoadStats stats;         // this cloud's points, rays and skips
  uint64_t sequence = 0;      // clouds received before it (dropped ones included)
  double stamp = 0.0;         // header.stamp, seconds
  std::chrono::steady_clock::time_point arrived;  // when its last byte arrived
  std::optional<SensorPose> sensorPose;           // the sensor in the fixed frame at the stamp
};

struct LiveInputStats {
  uint64_t cloudsReceived = 0;   // whole cloud messages received
  uint64_t cloudsMade = 0;       // made into rays and handed out by next()
  uint64_t droppedBehind = 0;    // dropped whole because the mapper was behind
  uint64_t droppedNoPose = 0;    // dropped whole: no tf for any of its points
  uint64_t droppedBackwards = 0; // dropped whole: stamped before the cloud made ahead of it (as files)
  uint64_t malformed = 0;        // cloud or tf messages that did not decode (skipped)
  uint64_t transforms = 0;       // tf transforms received
  uint64_t refusedTransforms = 0;
  uint64_t reconnects = 0;
  RayLoadStats load;             // summed over the clouds made
  std::string topic, encoding;   // the cloud topic read and its encoding, once known
  std::string frames;            // "map -> odom -> lidar", once resolved
  std::string firstMalformed;    // the first decoding error, for the report
  // Clouds received and dropped whole, for any reason.
  uint64_t dropped() const { return droppedBehind + droppedNoPose + droppedBackwards; }
};

class LiveCloudSource {
 public:
  // Connects (in the background). Throws Error for a URL that is not ws://HOST:PORT.
  explicit LiveCloudSource(LiveInputOptions options);
  ~LiveCloudSource();  // disconnects and joins its threads
  LiveCloudSource(const LiveCloudSource&) = delete;
  LiveCloudSource& operator=(const LiveCloudSource&) = delete;

  // The next cloud made into rays, waiting at most `wait`; nullopt when none is ready. Throws
  // Error when the stream cannot go on (see the top of this file).
  std::optional<LiveCloud> next(std::chrono::milliseconds wait);
  LiveInputStats stats() const;
  // What happened since the last call, one sentence each (connected, subscribed, lost,
  // reconnecting, a malformed message): for the caller to show.
  std::vector<std::string> takeEvents();
  bool connected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen::live

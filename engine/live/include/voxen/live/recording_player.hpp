#pragma once
// voxen::live::playRecording: a recording's point clouds and tf (a ROS 1 bag or an MCAP file)
// sent on a FoxgloveServer at the pace they were recorded, in their own encoding (ros1 or
// cdr) with their schemas, as foxglove_bridge sends a robot's: what `voxen play` does, so that
// `voxen map --live` can be tried, tested and measured without a robot.
//
//   voxen::live::FoxgloveServer server({.port = 8765});
//   voxen::live::playRecording("drive.mcap", server, {.rate = 1.0});
//
// Channels: clouds and /tf send every message to every subscriber (everyMessage: a client
// that falls 64 messages behind misses the oldest, as a bridge's bounded send queue drops);
// /tf_static keeps every message for clients that join later, as ROS latches it.
//
// Threads: blocks the calling thread until the recording is played (or stop() answers true).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "voxen/live/foxglove_server.hpp"

namespace voxen::live {

struct PlayOptions {
  double rate = 1.0;    // 2: twice as fast as recorded
  bool loop = false;    // start again after the last message (stop() ends it)
  // Wait until a client subscribes to a cloud topic before the first message (0: do not wait).
  double waitForSubscriberSeconds = 0.0;
  std::function<bool()> stop{};  // asked between messages: true ends the playing
  // After each cloud: clouds sent so far and in all (one pass).
  std::function<void(uint64_t clouds, uint64_t total)> progress{};
};

struct PlayStats {
  uint64_t messages = 0, clouds = 0, transforms = 0, bytes = 0;
  double seconds = 0.0;      // wall time playing
  double maxLateMs = 0.0;    // the most a message went out after its time
  std::vector<std::string> topics;   // "topic (type, encoding)" played
  std::vector<std::string> leftOut;  // topics of other types, not played
  bool waitedInVain = false;         // no client subscribed within waitForSubscriberSeconds
};

// Throws Error naming the file (not a recording, nothing to play).
PlayStats playRecording(const std::filesystem::path& recording, FoxgloveServer& server, const PlayOptions& options = {});

}  // namespace voxen::live

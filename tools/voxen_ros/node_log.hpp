#pragma once
// The engine side's log: through the sink the ROS side sets (setLogSink in engine_bridge.hpp,
// which hands the lines to rosconsole), so the engine side includes no ROS header.
//
// Threads: log() and logThrottled() from any thread; the sink is set once before the threads start.
#include <string>

#include "engine_bridge.hpp"

namespace voxen_ros {

void log(LogLevel level, const std::string& message);
// At most once per `seconds` for each `key` (a call site's name); the others are dropped.
void logThrottled(const char* key, double seconds, LogLevel level, const std::string& message);

}  // namespace voxen_ros

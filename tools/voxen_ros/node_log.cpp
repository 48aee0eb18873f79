#include "node_log.hpp"

#include <chrono>
#include <map>
#include <mutex>

namespace voxen_ros {

namespace {

std::function<void(LogLevel, const std::string&)>& sink() {
  static std::function<void(LogLevel, const std::string&)> s;
  return s;
}

}  // namespace

void setLogSink(std::function<void(LogLevel, const std::string&)> s) { sink() = std::move(s); }

void log(LogLevel level, const std::string& message) {
  if (sink()) sink()(level, "voxen_ros: " + message);
}

void logThrottled(const char* key, double seconds, LogLevel level, const std::string& message) {
  static std::mutex mutex;
  static std::map<std::string, std::chrono::steady_clock::time_point> last;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex);
    const auto it = last.find(key);
    if (it != last.end() && now - it->second < std::chrono::duration<double>(seconds)) return;
    last[key] = now;
  }
  log(level, message);
}

}  // namespace voxen_ros

#include "voxen/host/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace voxen {

namespace {

std::mutex& sinkMutex() {
  static std::mutex mutex;
  return mutex;
}

LogSink& currentSink() {
  static LogSink sink;
  return sink;
}

}  // namespace

const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
    case LogLevel::Debug: return "debug";
  }
  return "?";
}

LogSink setLogSink(LogSink sink) {
  std::lock_guard lock(sinkMutex());
  LogSink previous = std::move(currentSink());
  currentSink() = std::move(sink);
  return previous;
}

void logMessage(LogLevel level, const std::string& message) {
  std::lock_guard lock(sinkMutex());
  if (currentSink()) {
    currentSink()(level, message);
    return;
  }
  if (level == LogLevel::Debug) {
    const char* debug = std::getenv("VOXEN_DEBUG");
    if (!debug || !*debug || std::string(debug) == "0") return;
  }
  // One fputs per message, so that lines of concurrent processes do not interleave.
  const std::string line = "voxen: " + message + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace voxen

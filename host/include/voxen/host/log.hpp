#pragma once
// The library's one log sink. Voxen reports what it cannot throw (validation messages,
// hot-reload results, an integrator that could not copy its regions back in a destructor)
// through logMessage(); the default sink writes "voxen: <message>" to stderr. An embedding
// program redirects every such message with setLogSink (for example into its own logger),
// and restores the default with setLogSink({}). Thread-safe: sinks are called under a lock,
// one message at a time.
#include <functional>
#include <string>

namespace voxen {

// Debug lines (a pipeline cache file that was ignored, and why) reach a program's own sink;
// the default sink writes them only when VOXEN_DEBUG is set.
enum class LogLevel { Info, Warning, Error, Debug };

using LogSink = std::function<void(LogLevel level, const std::string& message)>;

// Replaces the sink; returns the previous one (empty: the default stderr sink).
LogSink setLogSink(LogSink sink);
void logMessage(LogLevel level, const std::string& message);

const char* logLevelName(LogLevel level);

}  // namespace voxen

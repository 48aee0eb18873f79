#pragma once
// The flags of the commands that run a Foxglove WebSocket server (`voxen serve`, `voxen play`,
// `voxen map --serve`): where it listens and which web pages may read it.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "voxen/live/foxglove_server.hpp"

namespace voxen::cli {

struct LiveServerArgs {
  int port = 8765;
  std::string bind = "127.0.0.1";
  std::vector<std::string> allowOrigins;
};

// Declares --port, --bind and --allow-origin on `command`.
void addLiveServerOptions(CLI::App& command, LiveServerArgs& args, int defaultPort);
live::FoxgloveServerOptions serverOptionsOf(const LiveServerArgs& args);
// `voxen map --serve [HOST]:PORT`: the address parsed into `args` (UsageError naming --serve).
void parseServeAddress(const std::string& text, LiveServerArgs& args);
// One line for stderr: where the server listens, the page's URL, and (listening on
// 127.0.0.1) how to make it reachable from other machines.
std::string serverBanner(const std::string& who, const live::FoxgloveServer& server, const LiveServerArgs& args);
// The wall clock in nanoseconds since the epoch: the log time of the messages a server publishes.
uint64_t wallClockNs();

}  // namespace voxen::cli

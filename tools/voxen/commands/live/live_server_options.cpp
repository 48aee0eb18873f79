// The Foxglove server's flags (live_server_options.hpp).
#include "commands/live/live_server_options.hpp"

#include <chrono>

#include "cli_options.hpp"
#include "voxen/live/web_assets.hpp"
#include "voxen_apps/number_checks.hpp"

namespace voxen::cli {

void addLiveServerOptions(CLI::App& command, LiveServerArgs& args, int defaultPort) {
  args.port = defaultPort;
  command.add_option("--port", args.port, "the port the Foxglove WebSocket server (and the browser page) listens on; 0: any free port")
      ->check(apps::integerIn(0, 65535))
      ->capture_default_str();
  command.add_option("--bind", args.bind,
                     "the address to listen on: 127.0.0.1 (this machine only, the default), 0.0.0.0 (every network)")
      ->capture_default_str();
  command.add_option("--allow-origin", args.allowOrigins,
                     "web origins whose pages may read the stream besides the server's own page and Foxglove's web app "
                     "(https://host:port; * for any)");
}

live::FoxgloveServerOptions serverOptionsOf(const LiveServerArgs& args) {
  return {.bind = args.bind, .port = uint16_t(args.port), .allowedOrigins = args.allowOrigins};
}

void parseServeAddress(const std::string& text, LiveServerArgs& args) {
  const size_t colon = text.rfind(':');
  const std::string port = colon == std::string::npos ? text : text.substr(colon + 1);
  const std::optional<int64_t> number = apps::parseInteger(port);
  if (!number || *number < 0 || *number > 65535)
    throw UsageError("--serve '" + text + "': expected [HOST]:PORT with a port from 0 to 65535 (:8765, 0.0.0.0:8765)");
  args.port = int(*number);
  if (colon != std::string::npos && colon > 0) args.bind = text.substr(0, colon);
  if (args.bind.size() > 2 && args.bind.front() == '[' && args.bind.back() == ']') args.bind = args.bind.substr(1, args.bind.size() - 2);
}

std::string serverBanner(const std::string& who, const live::FoxgloveServer& server, const LiveServerArgs& args) {
  const std::string ws = server.url();
  const std::string page = live::webPageBuilt() ? "http" + ws.substr(2) + "/" : std::string("no browser page in this build");
  std::string line = who + ": Foxglove WebSocket server on " + ws + " (page: " + page + ")";
  if (args.bind == "127.0.0.1" || args.bind == "localhost" || args.bind == "::1")
    line += "; this machine only: --bind 0.0.0.0 makes it reachable from other machines";
  return line;
}

uint64_t wallClockNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace voxen::cli

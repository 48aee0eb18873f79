// `voxen play RECORDING`: a recording's point clouds and tf served as a robot's Foxglove bridge
// serves them (voxen/live/recording_player.hpp), at the recorded pace or faster, so that
// `voxen map --live` can be tried, tested and measured without a robot.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "commands/live/live_server_options.hpp"
#include "report/progress.hpp"
#include "stop_request.hpp"
#include "voxen/live/recording_player.hpp"
#include "voxen_apps/number_checks.hpp"

namespace voxen::cli {

namespace {

struct PlayArgs {
  std::string recording;
  LiveServerArgs server;
  double rate = 1.0;
  bool loop = false;
  double waitSeconds = 0.0;
  bool quiet = false;
};

int play(const CommonOptions& options, const PlayArgs& args) {
  live::FoxgloveServer server(serverOptionsOf(args.server));
  StopRequest stopRequest("\nvoxen play: stopping (again to stop at once)\n");
  const bool talk = !args.quiet && !options.json;
  std::fprintf(stderr, "%s\n", serverBanner("voxen play", server, args.server).c_str());
  std::optional<Progress> progress;
  live::PlayOptions play{.rate = args.rate, .loop = args.loop, .waitForSubscriberSeconds = args.waitSeconds,
                         .stop = [&stopRequest] { return stopRequest.signal() != 0; }};
  play.progress = [&](uint64_t clouds, uint64_t total) {
    if (!talk) return;
    if (!progress) progress.emplace("playing " + args.recording, total, true, "clouds");
    progress->update(clouds);
  };
  const live::PlayStats stats = live::playRecording(args.recording, server, play);
  if (progress) progress->finish(stats.clouds);
  if (talk) {
    for (const std::string& t : stats.topics) std::fprintf(stderr, "voxen play: played %s\n", t.c_str());
    for (const std::string& t : stats.leftOut) std::fprintf(stderr, "voxen play: left out %s (not a point cloud or tf)\n", t.c_str());
    if (stats.waitedInVain)
      std::fprintf(stderr, "voxen play: no client subscribed to a cloud topic within --wait-for-client %g s; played anyway\n",
                   args.waitSeconds);
  }
  const live::FoxgloveServerCounters c = server.counters();
  if (options.json)
    std::printf("{\"messages\":%llu,\"clouds\":%llu,\"transforms\":%llu,\"bytes\":%llu,\"seconds\":%.3f,\"max_late_ms\":%.3f,"
                "\"connections\":%llu,\"messages_sent\":%llu}\n",
                (unsigned long long)stats.messages, (unsigned long long)stats.clouds, (unsigned long long)stats.transforms,
                (unsigned long long)stats.bytes, stats.seconds, stats.maxLateMs, (unsigned long long)c.connections,
                (unsigned long long)c.messagesSent);
  else if (talk)
    std::fprintf(stderr, "voxen play: %llu clouds and %llu tf messages in %.1f s (at most %.1f ms late); %llu clients connected\n",
                 (unsigned long long)stats.clouds, (unsigned long long)stats.transforms, stats.seconds, stats.maxLateMs,
                 (unsigned long long)c.connections);
  return stopRequest.signal() ? 128 + stopRequest.signal() : 0;
}

CommandRun setupPlay(CLI::App& command) {
  auto args = std::make_shared<PlayArgs>();
  command.add_option("recording", args->recording, "the ROS 1 bag or MCAP file to play (its point clouds and tf)")
      ->required();
  addLiveServerOptions(command, args->server, 8765);
  command.add_option("--rate", args->rate, "how much faster than recorded (2: twice as fast)")
      ->check(apps::numberIn(0.0, 1000.0, "", apps::LowEnd::Open))
      ->capture_default_str();
  command.add_flag("--loop", args->loop, "start again after the last message (until Ctrl-C)");
  command.add_option("--wait-for-client", args->waitSeconds,
                     "wait up to this many seconds for a client to subscribe to a cloud topic before playing")
      ->check(apps::numberIn(0.0, 86400.0, "seconds"));
  command.add_flag("--quiet", args->quiet, "no progress or summary on stderr");
  return [args](const CommonOptions& options) { return play(options, *args); };
}

}  // namespace

static CommandRegistration registration{"play", "serve a recording's point clouds and tf as a robot's Foxglove bridge does",
                                        &setupPlay, Uses::Json};

}  // namespace voxen::cli

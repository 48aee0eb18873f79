// `voxen map --live` and `--serve` in a build without live streaming (VOXEN_LIVE off, or websocketpp and
// asio missing when it was built): refused, saying why. The live build's mapLive is
// commands/live/map_live_run.cpp.
#include "commands/map/map_args.hpp"

namespace voxen::cli {

#if !VOXEN_HAVE_LIVE
int mapLive(const CommonOptions&, MapArgs&) {
  throw UsageError("--live: this build of voxen has no live streaming (websocketpp and asio were not found when it was "
                   "built: apt-get install libwebsocketpp-dev libasio-dev, or run scripts/setup.sh, and build again)");
}

std::function<void(Mapper&)> serveFileRun(const MapArgs&, MappingRunOptions&) {
  throw UsageError("--serve: this build of voxen has no live streaming (websocketpp and asio were not found when it was "
                   "built: apt-get install libwebsocketpp-dev libasio-dev, or run scripts/setup.sh, and build again)");
}
#endif

}  // namespace voxen::cli

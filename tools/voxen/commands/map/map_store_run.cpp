// What `voxen map --store` records of its command line and settings, and --resume, which
// parses the recorded options back (the run itself is voxen::MappingRun's).
#include <filesystem>
#include <set>

#include "commands/map/map_args.hpp"
#include "ndt_options.hpp"
#include "pcd_viewpoint_option.hpp"
#include "run_arguments.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

// What a resumed run must share with the run it continues, by flag.
RunSettings runSettingsOf(const MapArgs& args, const OccupancyModel& model, const MapLayout& layout) {
  const auto boxText = [](const std::vector<double>& values) {
    std::string text;
    for (const double v : values) text += (text.empty() ? "" : " ") + formatNumber(v);
    return text;
  };
  auto number = [](double v) { return formatNumber(v); };
  std::error_code ec;
  const std::filesystem::path input = std::filesystem::absolute(args.cloud, ec);
  // (The inputs' contents are compared through their fingerprints: inputFingerprints.)
  RunSettings s = {{"--input", input.string()},
                   {"--trajectory", args.trajectory.empty() ? "" : std::filesystem::absolute(args.trajectory, ec).string()},
                   {"--cloud-topic", args.recording.cloudTopic},
                   {"--fixed-frame", args.recording.fixedFrame},
                   {"--sensor-frame", args.recording.sensorFrame},
                   {"--start", number(args.recording.start)},
                   {"--duration", args.recording.duration ? number(*args.recording.duration) : ""},
                   {"--no-deskew", args.recording.deskew ? "" : "yes"},
                   {"--pcd-viewpoint", args.pcdViewpoint ? pcdViewpointName(*args.pcdViewpoint) : ""},
                   {"--resolution", number(model.resolution)},
                   {"--region", std::to_string(model.regionSize)},
                   {"--hit", number(model.hitProbability)},
                   {"--miss", number(model.missProbability)},
                   {"--threshold", number(model.occupancyThreshold)},
                   {"--clamp", number(model.clampMin) + " " + number(model.clampMax)},
                   {"layers", layout.names()},
                   {"ray flags", std::to_string(uint32_t(args.integration.flags.bits()))},
                   {"--max-range", number(args.integration.maxRange)},
                   {"--min-range", number(args.minRange)},
                   {"--exclude-box", boxText(args.excludeBox)},
                   {"--origin", boxText(args.origin)},
                   {"--update-order", updateOrderName(args.integration.order)},
                   {"--ndt", ndtSettingsText(args.integration.ndt)},
                   {"backend", args.cpuSequential ? "--cpu-sequential" : args.cpu ? "--cpu" : "gpu"}};
  // The two-phase order's map depends on the batches; the sequential order's does not.
  if (args.integration.order != UpdateOrder::Sequential) s.emplace_back("--batch-size", std::to_string(args.gpu.maxRaysPerBatch));
  return s;
}

namespace {

// A store run records the map command's options as given (but the store's name, --resume and
// --quiet), the inputs' paths made absolute, so that --resume alone continues it.
const std::set<std::string> kPathOptions = {"--cloud", "--input", "--trajectory"};

std::set<std::string> recordedOptionNames() {
  CLI::App app;
  MapArgs unused;
  addMapOptions(app, unused);
  std::set<std::string> names;
  for (const CLI::Option* option : app.get_options())
    if (!option->get_lnames().empty()) names.insert("--" + option->get_lnames().front());
  for (const char* runOnly : {"--store", "--session", "--resume", "--quiet"}) names.erase(runOnly);
  return names;
}

}  // namespace

RunSettings recordedOptions(const MapArgs& args) {
  return {{"arguments", encodeOptions(givenOptions(*args.command, recordedOptionNames(), kPathOptions))}};
}

// --resume: the options the run recorded when it started, each one this command gives in its
// place (the run's settings are then compared as always). Refuses a store that does not exist
// (before anything could create it) or holds no run to resume.
void takeRecordedOptions(MapArgs& args) {
  if (args.store.empty() || (isPostgresTarget(args.store) && args.session.empty())) return;  // refused by checkStoreOptions
  std::error_code ec;
  if (!isPostgresTarget(args.store) && !std::filesystem::exists(args.store, ec))
    throw Error("store '" + redactedStoreName(args.store) + "' does not exist: --resume continues the unfinished run in an " +
                "existing store (without --resume, voxen map --store " + redactedStoreName(args.store) + " starts a new run)");
  const std::unique_ptr<MapStore> store = openMapStoreForReading(args.store, {.session = args.session});
  StoreMapping::requireResumable(*store);
  const std::optional<std::string> recorded = StoreMapping::recordedNote(*store, "arguments");
  if (!recorded) {
    if (args.cloud.empty() && args.input.empty())
      throw UsageError("the run in store '" + store->name() + "' recorded no options (an earlier Voxen started it): give " +
                       "its input and settings with --resume");
    return;
  }
  const GivenOptions merged = mergedOptions(decodeOptions(*recorded, "store '" + store->name() + "': the run's recorded options"),
                                            givenOptions(*args.command, recordedOptionNames(), kPathOptions),
                                            {{"--cloud", "--input"}});
  struct Resumed {
    CLI::App app;
    MapArgs args;
  };
  auto resumed = std::make_shared<Resumed>();
  addMapOptions(resumed->app, resumed->args);
  std::vector<std::string> arguments = argumentsOf(merged);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  try {
    resumed->app.parse(arguments);
  } catch (const CLI::ParseError& e) {
    throw UsageError("--resume: the run's recorded options with this command's do not parse: " + std::string(e.what()));
  }
  MapArgs taken = resumed->args;
  taken.store = args.store, taken.session = args.session, taken.resume = true, taken.quiet = args.quiet;
  taken.resumedCommand = resumed;
  args = taken;
}

// The command that continues the run in the store.
std::string resumeCommand(const MapArgs& args) {
  return "voxen map --store " + redactedStoreName(args.store) + (args.session.empty() ? "" : " --session " + args.session) + " --resume";
}
// The options that only mean something with --store, and those that do not go with it.
void checkStoreOptions(const MapArgs& args) {
  if (args.store.empty()) {
    if (args.output.empty()) throw UsageError("--output MAP.vxm (or --store STORE) is required");
    for (const CLI::Option* option : args.storeSettings)
      if (option->count() > 0) throw UsageError(option->get_name() + " needs --store: it is about mapping into a region store");
    return;
  }
  if (!args.output.empty())
    throw UsageError("--store and --output: a run maps into one of them (voxen convert STORE MAP.vxm makes a map file of a store)");
  if (!args.heightmapOutput.empty())
    throw UsageError("--heightmap does not go with --store (the store holds the map as it grows; voxen heightmap " +
                     redactedStoreName(args.store) + " --output HM.vxh makes it afterwards)");
  if (args.withClearance)
    throw UsageError("--clearance does not go with --store (the store holds the map as it grows; voxen clearance " + redactedStoreName(args.store) +
                     " --range R computes the layer afterwards)");
  if (isPostgresTarget(args.store) && args.session.empty())
    throw UsageError("--store " + redactedStoreName(args.store) + " is a server: --session NAME names this run's session");
  if (!isPostgresTarget(args.store) && !args.session.empty())
    throw UsageError("--session is for a server store (postgresql://...); " + redactedStoreName(args.store) + " is a file with one run");
}

}  // namespace voxen::cli

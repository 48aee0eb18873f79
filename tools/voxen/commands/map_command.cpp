// `voxen map`: a point cloud (plus trajectory) or a ray cloud to an occupancy map file, on
// the GPU (or with --cpu, the CPU reference in the GPU's order; with --cpu-sequential, the
// CPU reference ray after ray, as OHM and OctoMap do), with progress and a summary.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "report/error_report.hpp"
#include "report/host_stage_report.hpp"
#include "report/startup_report.hpp"
#include "report/json_output.hpp"
#include "ndt_options.hpp"
#include "update_order_option.hpp"
#include "option_checks.hpp"
#include "pcd_viewpoint_option.hpp"
#include "output_checks.hpp"
#include "report/progress.hpp"
#include "run_arguments.hpp"
#include "stop_request.hpp"
#include "report/text_format.hpp"
#include "commands/clearance_cli.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/store/input_fingerprint.hpp"
#include "voxen/store/store_mapping.hpp"

#include <sys/resource.h>

namespace voxen::cli {

namespace {

struct MapArgs {
  std::string cloud, input, trajectory, output;
  RecordingOptions recording;  // ROS 1 bags and MCAP files
  std::optional<PcdViewpoint> pcdViewpoint;  // --pcd-viewpoint: how PCD files' VIEWPOINT is read
  std::string preset = "ohm";  // the model the probabilities start from
  // Model values given on the command line: they override the preset's, whatever the order.
  std::optional<double> resolution, hit, miss, threshold;
  std::optional<int32_t> regionSize;
  std::vector<double> clamp;  // min, max
  LayerSet layers;
  IntegrationOptions integration;
  GpuIntegratorOptions gpu;
  bool cpu = false, cpuSequential = false, quiet = false;
  bool orderGiven = false;
  bool allowEmpty = false;  // write the map even when no ray made it into it
  // Returns from the robot itself (--min-range, --exclude-box), and a single scan's sensor
  // position (--origin).
  double minRange = 0.0;
  std::vector<double> excludeBox, origin;
  // A store the map is saved into as it grows (--store), instead of a map file at the end.
  std::string store, session;
  StoreMappingOptions storeMapping;
  bool resume = false;
  std::vector<CLI::Option*> storeSettings;  // options that need --store
  // The command these were parsed from (a store run records its given options), and with
  // --resume the one parsed from the run's recorded options (takeRecordedOptions) they now
  // come from, kept alive for the Option pointers here.
  CLI::App* command = nullptr;
  std::shared_ptr<void> resumedCommand;
  ClearanceOptions clearance;  // computed after mapping when clearance.range > 0 (--clearance)
  bool withClearance = false;
  // Threads reading the cloud (--threads): the machine's cores by default.
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  // Options whose effect depends on others: given or not.
  std::vector<CLI::Option*> ndtSettings;
  CLI::Option* gpuCache = nullptr;

  OccupancyModel model() const {
    OccupancyModel m = preset == "octomap" ? OccupancyModel::octomap() : OccupancyModel();
    if (resolution) m.resolution = *resolution;
    if (regionSize) m.regionSize = *regionSize;
    if (hit) m.hitProbability = float(*hit);
    if (miss) m.missProbability = float(*miss);
    if (threshold) m.occupancyThreshold = float(*threshold);
    if (!clamp.empty()) m.clampMin = float(clamp[0]), m.clampMax = float(clamp[1]);
    m.validate();  // a SettingError, which the tool words with the flag (--clamp 0 0)
    return m;
  }
};

void addModelOptions(CLI::App& command, MapArgs& args) {
  const std::string group = "Occupancy model";
  command.add_option("--model", args.preset, "the preset the values below change")
      ->check(CLI::IsMember({"ohm", "octomap"}))
      ->capture_default_str()
      ->group(group);
  command.add_option("--resolution", args.resolution, "voxel edge (default 0.1)")
      ->check(numberIn(kMinResolution, kMaxResolution, "metres"))
      ->group(group);
  command.add_option("--region", args.regionSize, "voxels per region edge (default 32)")->check(integerIn(4, 128))->group(group);
  command.add_option("--hit", args.hit, "probability that a sample's voxel is occupied")
      ->check(numberIn(0.5, 0.999999, "", LowEnd::Open))
      ->group(group);
  command.add_option("--miss", args.miss, "probability that a voxel a ray crosses is occupied")
      ->check(numberIn(0.000001, 0.5, "", LowEnd::Closed, HighEnd::Open))
      ->group(group);
  command.add_option("--threshold", args.threshold, "probability from which a voxel counts as occupied")
      ->check(numberIn(0.000001, 0.999999, ""))
      ->group(group);
  command.add_option("--clamp", args.clamp, "log-odds bounds of a voxel's value")
      ->type_name("MIN MAX")
      ->expected(2)
      ->check(numberIn(-100.0, 0.0, "").application_index(0))
      ->check(numberIn(0.0, 100.0, "").application_index(1))
      ->group(group);
}

void addLayerAndRayOptions(CLI::App& command, MapArgs& args) {
  auto setFlag = [&command](const std::string& flag, RayFlags& flags, RayFlag bit, const std::string& what,
                            const std::string& group) {
    command.add_flag_callback(flag, [&flags, bit] { flags |= bit; }, what)->group(group);
  };
  auto addLayer = [&command](const std::string& flag, LayerSet& set, LayerId layer, const std::string& what,
                             const std::string& group) {
    command.add_flag_callback(flag, [&set, layer] { set.add(layer); }, what)->group(group);
  };
  const std::string layers = "Extra voxel layers", rays = "Ray handling";
  addLayer("--voxel-mean", args.layers, kVoxelMeanLayer, "sub-voxel mean position of the samples", layers);
  addLayer("--traversal", args.layers, kTraversalLayer, "summed ray length through each voxel", layers);
  addLayer("--hit-miss", args.layers, kHitMissLayer, "hit and miss counts", layers);
  addLayer("--touch-time", args.layers, kTouchTimeLayer, "latest time a ray touched each voxel", layers);
  setFlag("--end-point-as-free", args.integration.flags, RayFlag::EndPointAsFree, "no-return rays: the sample's voxel is a miss too", rays);
  setFlag("--exclude-origin", args.integration.flags, RayFlag::ExcludeOrigin, "leave the sensor's voxel alone", rays);
  setFlag("--exclude-sample", args.integration.flags, RayFlag::ExcludeSample, "leave the sample's voxel alone", rays);
  setFlag("--stop-on-occupied", args.integration.flags, RayFlag::StopOnFirstOccupied, "stop a ray at the first occupied voxel", rays);
  setFlag("--forward-walk", args.integration.flags, RayFlag::ForwardWalk, "walk each ray from the sensor to the sample (default: back from the sample)", rays);
  command.add_option("--max-range", args.integration.maxRange, "clip rays longer than this")
      ->check(numberIn(0.0, 1e6, "metres", LowEnd::Open))
      ->group(rays);
  command.add_option("--min-range", args.minRange,
                     "drop returns nearer the sensor than this (metres): the robot itself; counted in the summary")
      ->check(numberIn(0.0, 1e6, "metres"))
      ->type_name("R")
      ->group(rays);
  command.add_option("--exclude-box", args.excludeBox,
                     "drop returns inside this box, in the sensor's frame (the sensor at 0; for points given in the map "
                     "frame without orientations, the map's axes around each ray's origin): the robot's body; counted "
                     "in the summary")
      ->type_name("XMIN YMIN ZMIN XMAX YMAX ZMAX")
      ->expected(6)
      ->check(numberIn(-1e6, 1e6, "metres"))
      ->group(rays);
}

// What to read from a ROS 1 bag or an MCAP file (the reader refuses them for other formats).
void addRecordingOptions(CLI::App& command, RecordingOptions& recording) {
  const std::string group = "Recordings (ROS 1 bags, MCAP)";
  command.add_option("--cloud-topic", recording.cloudTopic, "the sensor_msgs/PointCloud2 topic (default: the only one)")
      ->type_name("TOPIC")->group(group);
  command.add_option("--fixed-frame", recording.fixedFrame, "the map's tf frame (default: the root of the tf tree)")
      ->type_name("FRAME")->group(group);
  command.add_option("--sensor-frame", recording.sensorFrame, "the clouds' tf frame (default: their header.frame_id)")
      ->type_name("FRAME")->group(group);
  command.add_option("--start", recording.start, "skip the clouds recorded in the first S seconds")
      ->check(numberIn(0.0, 1e9, "seconds"))->type_name("S")->group(group);
  command.add_option_function<double>("--duration", [&recording](const double& d) { recording.duration = d; },
                                      "map the clouds recorded in D seconds from --start")
      ->check(numberIn(0.0, 1e9, "seconds", LowEnd::Open))->type_name("D")->group(group);
  command.add_flag_callback("--no-deskew", [&recording] { recording.deskew = false; },
                            "pose every point of a cloud at its header.stamp instead of at its own time")
      ->group(group);
}

// Saving the map as it grows: a region store, its checkpoints and memory, resuming.
void addStoreOptions(CLI::App& command, MapArgs& args) {
  const std::string group = "Mapping into a store (maps larger than memory, saved as they grow)";
  command.add_option("--store", args.store,
                     "map into this region store (an SQLite file, or a postgresql:// server) instead of --output: regions "
                     "are saved at every checkpoint and the run can be resumed; voxen info, export, query, render and "
                     "clearance read it while it grows, voxen convert makes it a map file")
      ->type_name("STORE")->group(group);
  args.storeSettings = {
      command.add_option("--session", args.session, "the session this run pushes to (a server store: one per robot or run)")
          ->type_name("NAME")->group(group),
      command.add_option_function<uint64_t>(
          "--host-memory-mb", [&args](const uint64_t& mb) { args.storeMapping.hostMemoryBytes = mb << 20; },
          "keep at most this much of the map in host memory: the regions least recently changed go to the store "
          "and come back when rays need them (the map is the same as with no limit)")
          ->type_name("N")->check(integerIn(1, 1 << 24))->group(group),
      command.add_option("--checkpoint-s", args.storeMapping.checkpointSeconds,
                         "seconds between checkpoints (each saves the regions changed since the last, with the input "
                         "position, in one transaction; 0: after every chunk read)")
          ->type_name("S")->check(numberIn(0.0, 1e7, "seconds"))->capture_default_str()->group(group),
      command.add_flag("--resume", args.resume,
                       "continue the unfinished run in --store from its last checkpoint, with the input and settings it "
                       "recorded (voxen map --store STORE --resume; any given again must be the same, and an input "
                       "whose content changed is refused): the input is read again up to the checkpoint's position, and "
                       "the map ends as an uninterrupted run's. Ctrl-C stops a store run at its next checkpoint and "
                       "prints this command")->group(group)};
}

void addMapOptions(CLI::App& command, MapArgs& args) {
  args.command = &command;
  auto* cloud = command.add_option("--cloud", args.cloud, "the point cloud or ray cloud to map (as --input)")->type_name("CLOUD.ply");
  command
      .add_option("--input", args.input,
                  "the recording to map: a ROS 1 bag, an MCAP file (ROS 2), a PLY, PCD or KITTI .bin file, a folder "
                  "of PCD files or a KITTI odometry sequence, told apart by content (voxen inspect shows what it holds)")
      ->type_name("FILE_OR_FOLDER")
      ->excludes(cloud);
  command.add_option("--trajectory", args.trajectory, "sensor poses, when the cloud has no ray origins")->type_name("TRAJ.txt");
  command
      .add_option("--origin", args.origin,
                  "a single scan (a PLY with neither origin fields nor --trajectory): the sensor's position, every "
                  "ray's origin")
      ->type_name("X Y Z")
      ->expected(3)
      ->check(numberIn(-kMaxMapMetres, kMaxMapMetres, "metres"));
  addRecordingOptions(command, args.recording);
  addPcdViewpointOption(command, args.pcdViewpoint);
  command.add_option("--output", args.output, "the map file to write (or --store)")->type_name("MAP.vxm");
  addStoreOptions(command, args);
  addModelOptions(command, args);
  addLayerAndRayOptions(command, args);
  command.add_option("--batch-size", args.gpu.maxRaysPerBatch, "rays per GPU batch")
      ->check(integerIn(1, 1 << 22))
      ->capture_default_str();
  args.gpuCache = command
      .add_option_function<uint64_t>(
          "--gpu-cache-mb", [&args](const uint64_t& mb) { args.gpu.cacheBytes = mb << 20; },
          "GPU memory for the regions being updated (default 256; counted in --memory-budget, which the host map "
          "gets the rest of)")
      ->type_name("N")
      ->check(integerIn(1, 1 << 20));
  args.ndtSettings = addNdtOptions(command, args.integration.ndt);
  auto* order = addUpdateOrderOption(command, args.integration.order, &args.orderGiven,
                                     "With --ndt the default is two-phase, the GPU's only NDT order");
  auto* cpu = command.add_flag("--cpu", args.cpu, "map with the CPU reference instead of the GPU (same --update-order)");
  command
      .add_flag_callback(
          "--cpu-sequential",
          [&args] {
            args.cpuSequential = true;
            args.integration.order = UpdateOrder::Sequential;
          },
          "the same as --cpu --update-order sequential")
      ->excludes(cpu)
      ->excludes(order);
  command
      .add_option_function<double>(
          "--clearance", [&args](const double& range) { args.clearance.range = range, args.withClearance = true; },
          "after mapping, compute each voxel's distance to the nearest obstacle within this range (metres; the "
          "clearance layer, exact technique, unknown space an obstacle; voxen clearance has every setting). The map "
          "is saved before the clearance is computed, and again with it")
      ->type_name("RANGE")
      ->check(numberIn(0.0, 1e4, "metres", LowEnd::Open));
  command
      .add_option("--threads", args.threads,
                  "threads reading the cloud and interpolating origins ahead of the integration (1: the integration "
                  "thread reads; the map is the same for any number)")
      ->check(integerIn(1, 1024))
      ->capture_default_str();
  command.add_flag("--quiet", args.quiet, "no progress or settings on stderr");
  command.add_flag("--allow-empty", args.allowEmpty,
                   "write the (empty) map and succeed when no voxel is updated (no rays, or every ray skipped or "
                   "rejected); without it such a run fails, counting why, and leaves an existing output as it was");
}

// The host map may hold what the memory budget leaves after the GPU region cache (on a CPU
// driver such as lavapipe the cache is host memory too; the Mapper sets that limit): a cache
// that leaves nothing is refused here by flag, before anything runs.
void checkCacheFitsBudget(const CommonOptions& options, const MapArgs& args) {
  const uint64_t budget = options.memoryBudgetBytes();
  // --clearance on the GPU makes a second cache of the same size once mapping is done.
  const uint64_t cache = args.cpu || args.cpuSequential ? 0 : args.gpu.cacheBytes * (args.withClearance ? 2 : 1);
  if (cache >= budget)
    throw UsageError("--gpu-cache-mb " + std::to_string(cache >> 20) + " leaves nothing of the memory budget of " +
                     std::to_string(budget >> 20) + " MB for the map: lower --gpu-cache-mb or raise --memory-budget");
}

// --min-range and --exclude-box; UsageError when a box's min exceeds its max.
SensorExclusion exclusionOf(const MapArgs& args) {
  SensorExclusion e{.minRange = args.minRange};
  if (args.excludeBox.empty()) return e;
  const glm::dvec3 lo(args.excludeBox[0], args.excludeBox[1], args.excludeBox[2]);
  const glm::dvec3 hi(args.excludeBox[3], args.excludeBox[4], args.excludeBox[5]);
  for (int a = 0; a < 3; ++a)
    if (lo[a] > hi[a])
      throw UsageError("--exclude-box: " + std::string(1, "xyz"[a]) + "min " + formatNumber(lo[a]) + " is greater than " +
                       std::string(1, "xyz"[a]) + "max " + formatNumber(hi[a]));
  e.box = std::array<glm::dvec3, 2>{lo, hi};
  return e;
}

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

// The content fingerprint of each input (voxen/store/input_fingerprint.hpp), as "FLAG
// (content)" settings: a resumed run refuses an input that changed since the run started. Read
// whole once, with progress when that takes a while. An input that is not there is left to
// the reader, which names it.
RunSettings inputFingerprints(const MapArgs& args, bool showProgress) {
  RunSettings prints;
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--input", args.cloud}, {"--trajectory", args.trajectory}}) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) continue;
    const uint64_t total = fingerprintBytes(path);
    Progress progress("fingerprinting " + flag, total, showProgress && total >= (uint64_t(512) << 20), "bytes");
    prints.emplace_back(flag + " (content)", inputFingerprint(path, [&progress](uint64_t read) { progress.update(read); }));
    progress.finish(total);
  }
  return prints;
}

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

// A store run stopped by a signal at a chunk boundary, after its checkpoint (not an
// std::exception: nothing on the way may take it for an error and reword it).
struct StoppedRun {
  uint64_t checkpoint = 0, raysTaken = 0;
  int signal = 0;
};

// Exit status 128 + the signal, as a shell reports a process the signal ended.
int reportStoppedRun(const StoppedRun& stopped, const MapArgs& args, const CommonOptions& options) {
  const std::string message = "stopped by " + std::string(StopRequest::signalName(stopped.signal)) + ": checkpoint " +
                              std::to_string(stopped.checkpoint) + " kept in " + redactedStoreName(args.store) + " (" +
                              withCommas(stopped.raysTaken) + " rays of the input); resume with: " + resumeCommand(args);
  const int status = 128 + stopped.signal;
  if (options.json) printError({"map", message, status, false, ""}, true, {});
  else std::fprintf(stderr, "voxen map: %s\n", message.c_str());
  return status;
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
  if (args.withClearance)
    throw UsageError("--clearance does not go with --store (the store holds the map as it grows; voxen clearance " + redactedStoreName(args.store) +
                     " --range R computes the layer afterwards)");
  if (isPostgresTarget(args.store) && args.session.empty())
    throw UsageError("--store " + redactedStoreName(args.store) + " is a server: --session NAME names this run's session");
  if (!isPostgresTarget(args.store) && !args.session.empty())
    throw UsageError("--session is for a server store (postgresql://...); " + redactedStoreName(args.store) + " is a file with one run");
}

int peakResidentMb() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return int(usage.ru_maxrss / 1024);  // Linux: kilobytes
}

// The most device memory Voxen held at once, by the memory types its buffers came from: on
// a discrete GPU the pools are device-local and only the staging is host-visible; on
// unified memory (lavapipe, integrated GPUs) every buffer is both, and `unified` says so.
Json deviceMemoryJson(const Device& device) {
  const MemoryTotals t = device.memoryStats().totals();
  const auto mb = [](uint64_t bytes) { return rounded(double(bytes) / double(1 << 20), 1); };
  return {{"device_local_mb", mb(t.peakDeviceLocal)}, {"host_visible_mb", mb(t.peakHostVisible)}, {"unified", t.unified}};
}

std::string rejectedRayText(const RejectedRay& r) {
  return "ray " + std::to_string(r.index) + ", origin " + pointText(r.ray.origin) + ", sample " + pointText(r.ray.sample) +
         (r.nonFinite            ? ": a non-finite coordinate"
          : r.nonFiniteIntensity ? ": a NaN or infinite intensity, which NDT-TM cannot fold into its statistics"
                                 : ": too far from the map's origin for 32-bit voxel coordinates");
}

// The points the reader dropped and the rays the integrator rejected, by reason, every count
// that is not 0: why the rays integrated are fewer than the points read ("samples").
std::vector<std::string> droppedReasons(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::vector<std::string> reasons;
  const auto add = [&](uint64_t n, const std::string& noun, const std::string& what) {
    if (n > 0) reasons.push_back(countText(n, noun) + " " + what);
  };
  add(load.skippedNonFinite, "point", "skipped for NaN/inf values");
  add(load.skippedOutsideTrajectory, "point", "skipped for times outside the poses' span");
  add(load.skippedBackwards, "point", "skipped in clouds stamped back in time");
  add(load.skippedInBox, "point", "skipped inside --exclude-box");
  add(load.skippedNearSensor, "point", "skipped nearer the sensor than --min-range");
  add(integrated.rejectedTooFar, "ray", "rejected as too far from the map's origin (a voxel coordinate beyond +-2^29)");
  add(integrated.rejectedNonFinite, "ray", "rejected for a non-finite coordinate");
  add(integrated.rejectedIntensity, "ray", "rejected for a NaN or infinite intensity (NDT-TM)");
  return reasons;
}

// The summary's line under "rays N, samples M" when the two differ, and what --max-range did:
// a clipped ray is integrated (a ray) but its end is free space, not a hit.
std::string raysAndSamplesText(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::string text;
  const std::vector<std::string> reasons = droppedReasons(load, integrated);
  if (load.points != integrated.rays && !reasons.empty()) {
    text = "rays and samples differ (each point read is a sample; a ray is one integrated): ";
    for (size_t i = 0; i < reasons.size(); ++i) text += (i ? ", " : "") + reasons[i];
  }
  if (integrated.clippedRays > 0)
    text += (text.empty() ? "" : "; ") + countText(integrated.clippedRays, "ray") +
            " longer than --max-range clipped there: free space to the clip, no hit at the sample";
  return text;
}

// Why a run updated no voxel, every count that is not 0, for the error that refuses its empty
// map: the points the reader dropped and the rays the integrator rejected, by reason.
std::string emptyMapReasons(const RayLoadStats& load, const IntegrationStats& integrated) {
  std::vector<std::string> reasons = droppedReasons(load, integrated);
  const auto counted = [](uint64_t n, const std::string& noun) { return countText(n, noun); };
  if (integrated.rays > 0)
    reasons.push_back(counted(integrated.rays, "ray") + " integrated without updating a voxel (--exclude-origin and "
                      "--exclude-sample leave nothing of rays shorter than a voxel)");
  std::string text = "no voxel was updated: " + counted(load.points, "point") + " read, " + counted(load.rays, "ray");
  if (reasons.empty()) return text + " (the input holds no points)";
  text += "; ";
  for (size_t i = 0; i < reasons.size(); ++i) text += (i ? ", " : "") + reasons[i];
  if (integrated.firstRejected) text += " (the first rejected: " + rejectedRayText(*integrated.firstRejected) + ")";
  return text;
}

// --profile: the host thread's CPU time per ray, reading the file and (on the GPU path)
// integrating, as JSON fields (with the GPU time per pass) or as text.
double nsPerRay(double seconds, uint64_t rays) { return rays > 0 ? seconds * 1e9 / double(rays) : 0.0; }

// The input's times are CPU time summed over the threads that read (the integration thread,
// or the workers), and the integration thread's wall time waiting for them.
void addHostProfileJson(Json& out, const RayReader& reader, Mapper* gpuRun) {
  const uint64_t rays = reader.stats().rays;
  out["input_threads"] = std::max(reader.threads(), 1u);
  out["host_read_ns_per_ray"] = rounded(nsPerRay(reader.times().readSeconds, rays), 2);
  out["host_origin_ns_per_ray"] = rounded(nsPerRay(reader.times().originSeconds, rays), 2);
  out["host_input_wait_ns_per_ray"] = rounded(nsPerRay(reader.times().waitSeconds, rays), 2);
  if (!gpuRun) return;
  addHostStageJson(out, gpuRun->hostStageTimes());
  addPassTimesJson(out, gpuRun->context().scheduler().profile());
}

void printHostProfile(const RayReader& reader, Mapper* gpuRun) {
  const uint64_t rays = reader.stats().rays;
  const RayReadTimes& read = reader.times();
  std::printf("\nHost thread CPU time per ray (thread CPU clock: waits for the GPU do not count), %s rays:\n",
              withCommas(rays).c_str());
  const std::string readers = reader.threads() > 0 ? std::to_string(reader.threads()) + " worker threads"
                                                   : std::string("the integration thread");
  std::printf("  input (%s): file reading %.1f, origin interpolation %.1f = %.1f ns per ray\n", readers.c_str(),
              nsPerRay(read.readSeconds, rays), nsPerRay(read.originSeconds, rays),
              nsPerRay(read.readSeconds + read.originSeconds, rays));
  if (reader.threads() > 0)
    std::printf("  the integration thread waited for input %.1f ns per ray (wall time)\n", nsPerRay(read.waitSeconds, rays));
  if (!gpuRun) return;
  const HostStageTimes integration = gpuRun->hostStageTimes();
  std::printf("  integration: %s\n", hostStageLine(integration).c_str());
  std::printf("  in all: %.1f ns per ray\n",
              nsPerRay(read.readSeconds + read.originSeconds + integration.totalSeconds(), rays));
}

// NDT: two-phase unless the order was asked for; the GPU has no sequential NDT order.
void settleNdtOrder(MapArgs& args) {
  if (args.integration.ndt.mode == NdtMode::Off) return;
  const bool cpu = args.cpu || args.cpuSequential;
  if (!args.orderGiven && !args.cpuSequential) args.integration.order = UpdateOrder::TwoPhase;
  if (!cpu && args.integration.order == UpdateOrder::Sequential)
    throw UsageError("--ndt with --update-order sequential needs --cpu: the GPU integrates NDT in two-phase order only");
  if (args.integration.order == UpdateOrder::OnePass)
    throw UsageError("--ndt with --update-order one-pass: NDT integrates in two-phase order (or sequential with --cpu)");
  if (args.integration.flags.has(RayFlag::StopOnFirstOccupied)) throw UsageError("--ndt does not support --stop-on-occupied");
}

// Flags that the chosen path would ignore are refused, naming both.
void refuseIneffectiveFlags(const CommonOptions& options, const MapArgs& args) {
  refuseNdtSettingsWithoutNdt(args.integration.ndt, args.ndtSettings);
  if (args.integration.ndt.mode != NdtMode::Off) args.integration.ndt.validate();
  if (!args.cpu && !args.cpuSequential) return;
  const std::string cpu = args.cpu ? "--cpu" : "--cpu-sequential";
  options.refuseWith({"--device", "--validation", "--hot-reload"}, cpu, "the CPU reference opens no device");
  if (args.integration.order == UpdateOrder::OnePass)
    throw UsageError("--update-order one-pass has no effect with " + cpu +
                     ": the CPU reference integrates one ray at a time, which is --update-order sequential");
  if (args.gpuCache->count() > 0)
    throw UsageError("--gpu-cache-mb has no effect with " + cpu + " (the CPU reference has no GPU cache; the map's "
                     "memory is --memory-budget)");
}

int mapCloud(const CommonOptions& options, MapArgs& args) {
  if (args.resume) takeRecordedOptions(args);
  if (args.cloud.empty() && args.input.empty()) throw UsageError("--input FILE_OR_FOLDER (or --cloud CLOUD.ply) is required");
  const std::string inputFlag = args.input.empty() ? "--cloud" : "--input";
  if (!args.input.empty()) args.cloud = args.input;
  refuseIneffectiveFlags(options, args);
  settleNdtOrder(args);
  const OccupancyModel model = args.model();
  checkStoreOptions(args);
  if (!args.output.empty()) checkOutputs({{"--output", args.output}}, {{inputFlag, args.cloud}, {"--trajectory", args.trajectory}});
  else if (!isPostgresTarget(args.store)) checkOutputs({}, {{inputFlag, args.cloud}, {"--trajectory", args.trajectory}, {"--store", args.store}});
  checkCacheFitsBudget(options, args);
  if (args.withClearance) validateClearanceSettings(args.clearance, model, {{"range", "--clearance"}, {"axis-scale", ""}});
  const auto start = std::chrono::steady_clock::now();
  // Before the reader starts: the fingerprints read the inputs whole.
  const RunSettings fingerprints = args.store.empty() ? RunSettings{} : inputFingerprints(args, !args.quiet && !options.json);
  // Constructed first: with worker threads, reading starts while the device is set up.
  RayReader reader(args.cloud, args.trajectory.empty() ? std::nullopt : std::optional<std::filesystem::path>(args.trajectory),
                   {.threads = unsigned(args.threads), .recording = args.recording, .pcdViewpoint = args.pcdViewpoint,
                    .exclusion = exclusionOf(args),
                    .origin = args.origin.empty() ? std::nullopt
                                                  : std::optional<glm::dvec3>(glm::dvec3(args.origin[0], args.origin[1], args.origin[2]))});
  printSettingWarnings("map", reader.settingWarnings());
  MapperOptions mapperOptions{.model = model};
  mapperOptions.extraLayers = args.layers;
  MapperRunOptions& run = mapperOptions.run;
  run.backend = args.cpu || args.cpuSequential ? MapperBackend::CpuReference : MapperBackend::Gpu;
  run.integration = args.integration;
  run.gpu = args.gpu;
  run.reserveClearanceCache = args.withClearance;
  run.regionLimitHint = options.memoryBudgetHint() + (args.integration.maxRange > 0.0 ? "" : " or set --max-range");
  Context context(options.contextOptions());
  Mapper mapper(context, mapperOptions);
  const OccupancyMap& map = mapper.map();
  // Mapping into a store: opened (created, or checked against this run's model and layers)
  // before anything is read, so that a wrong store fails at once.
  std::unique_ptr<StoreMapping> storeRun;
  if (!args.store.empty()) {
    RunSettings settings = runSettingsOf(args, model, map.layout());
    settings.insert(settings.end(), fingerprints.begin(), fingerprints.end());
    // The NDT settings the integrator will record in the map, recorded in the store's
    // description now (it is written when the store is made), so that merges know them.
    StoreDescription description = StoreDescription::of(map);
    if (args.integration.ndt.mode != NdtMode::Off)
      description.derivedSettings[ndtCovarianceLayer()] = ndtRecordedSettings(args.integration.ndt);
    std::unique_ptr<MapStore> store = openMapStoreForWriting(args.store, description, {.session = args.session});
    storeRun = args.resume ? StoreMapping::resume(std::move(store), settings, args.storeMapping)
                           : StoreMapping::start(std::move(store), settings, args.storeMapping, recordedOptions(args));
  }
  Mapper* gpuRun = run.backend == MapperBackend::Gpu ? &mapper : nullptr;
  const std::string device = gpuRun ? context.deviceInfo().name
                                    : std::string("CPU reference (") + updateOrderName(args.integration.order) + ")";
  const size_t chunk = std::max<size_t>(args.gpu.maxRaysPerBatch, 4096);
  // The rays integrated together: the GPU cuts its input into --batch-size batches, the CPU
  // reference takes each chunk read as one batch. In the sequential order the map does not
  // depend on it; in the two-phase order it does.
  const uint64_t batchSize = gpuRun ? args.gpu.maxRaysPerBatch : chunk;
  if (!args.quiet && !options.json)
    std::fprintf(stderr,
                 "voxen map: %s (%s) -> %s on %s (%s model: hit %s, miss %s, clamp [%s, %s]; resolution %s m, "
                 "region %d^3, layers: %s; %s; %s order, batches of %s rays; input threads %d; memory budget %s MB)\n",
                 args.cloud.c_str(), reader.format().c_str(), (args.store.empty() ? args.output : redactedStoreName(args.store)).c_str(), device.c_str(), args.preset.c_str(),
                 // The model's settings as typed (shortest exact decimals), never rounded to 3 digits.
                 formatFloat(model.hitProbability).c_str(), formatFloat(model.missProbability).c_str(),
                 formatFloat(model.clampMin).c_str(), formatFloat(model.clampMax).c_str(),
                 formatNumber(model.resolution).c_str(), model.regionSize,
                 map.layout().names().c_str(), ndtSettingsText(args.integration.ndt).c_str(),
                 updateOrderName(args.integration.order), withCommas(batchSize).c_str(), args.threads,
                 withCommas(options.memoryBudgetBytes() >> 20).c_str());

  // Recordings count progress in bytes (their point counts are known only once read).
  const bool byBytes = reader.totalBytes() > 0;
  Progress progress("mapping", byBytes ? reader.totalBytes() : reader.totalPoints(), !args.quiet, byBytes ? "bytes" : "rays");
  // With threads to spare, workers also prepare the rays for the GPU, half as many as read
  // (preparing costs about as much as reading).
  RunStartTimes runStart;
  const auto integrationStart = std::chrono::steady_clock::now();
  FileIntegrationOptions fileOptions{.prepareThreads = args.threads > 1 ? unsigned(std::max(1, args.threads / 2)) : 0u,
                                     .progress = [&](uint64_t points) {
                                       if (runStart.firstBatchSeconds == 0)
                                         runStart.firstBatchSeconds = std::chrono::duration<double>(
                                             std::chrono::steady_clock::now() - integrationStart).count();
                                       progress.update(byBytes ? reader.bytesRead() : points);
                                     }};
  // A store run asked to stop (Ctrl-C, SIGTERM) checkpoints at the next chunk boundary and
  // ends there, saying which checkpoint it kept and how to resume.
  std::optional<StopRequest> stopRequest;
  if (storeRun) {
    stopRequest.emplace();
    fileOptions.skipRays = storeRun->resumeRays();
    fileOptions.betweenChunks = [&storeRun, &stopRequest](MapperChunkBoundary& b) {
      if (stopRequest->signal() != 0 && !b.last())
        throw StoppedRun{storeRun->checkpointNow(b.map(), b.raysTaken(), [&b] { b.sync(); }), b.raysTaken(), stopRequest->signal()};
      if (b.raysTaken() == 0 && !b.last()) return;
      storeRun->betweenChunks(b.map(), b.raysTaken(), b.last(), [&b] { b.sync(); });
    };
    if (!args.quiet && !options.json && storeRun->resumed())
      std::fprintf(stderr, "voxen map: resuming the run in %s from its last checkpoint: %s rays are read again and passed over\n",
                   redactedStoreName(args.store).c_str(), withCommas(storeRun->resumeRays()).c_str());
  }
  // The store is the map's region source from the first ray: regions come back from it.
  if (storeRun) mapper.setRegionSource(storeRun.get());
  try {
    mapper.integrateFile(reader, fileOptions);
  } catch (const StoppedRun& stopped) {
    return reportStoppedRun(stopped, args, options);
  }
  stopRequest.reset();  // done: a signal now ends the process as usual
  mapper.sync();
  runStart.syncSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - integrationStart).count() - runStart.firstBatchSeconds;
  progress.finish(byBytes ? reader.bytesRead() : reader.stats().points);
  const double integrateSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A map of nothing is almost always a wrong input (times, fields, units, poses): fail
  // loudly rather than write an empty map that looks like a result. Empty is what the map
  // holds after every skip and rejection: no voxel updated (a resumed run's store may hold
  // the voxels of the run it continues).
  const std::string written = storeRun ? redactedStoreName(args.store) : args.output;  // a URL without its password
  if (!args.allowEmpty && mapper.submittedStats().voxelUpdates == 0) {
    const OccupancyMap::Counts held = storeRun ? storeRun->counts() : map.counts();
    const std::string why = reader.summary() + ": " + emptyMapReasons(reader.stats(), mapper.submittedStats());
    if (held.occupied + held.free == 0 && !storeRun)
      throw Error(why + "; so nothing was written to " + written + " (give --allow-empty to write the empty map anyway)");
    if (held.occupied + held.free == 0)
      throw Error(why + "; the store " + written + " holds an empty map (give --allow-empty to accept that)");
  }
  ClearanceStats clearance;
  if (args.withClearance) {
    // The mapping is saved first: whatever happens to the clearance, the mapped work is kept.
    mapper.save(args.output);
    try {
      Progress clearanceProgress("clearance", map.regions().size(), !args.quiet, "regions");
      clearance = mapper.computeClearance(
          args.clearance, {.cacheBytes = args.gpu.cacheBytes,
                           .progress = [&clearanceProgress](uint64_t done, uint64_t) { clearanceProgress.update(done); }});
      clearanceProgress.finish(clearance.regions);
    } catch (const std::exception& e) {
      char retry[64];
      std::snprintf(retry, sizeof retry, "%g", args.clearance.range);
      throw Error(std::string(e.what()) + " (the map is saved without its clearance in " + args.output +
                  "; voxen clearance " + args.output + " --in-place --range " + retry + " computes it)");
    }
  }
  if (!storeRun) mapper.save(args.output);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const MapperStats mapped = mapper.stats();
  const IntegrationStats& stats = mapped.integration;
  const RayLoadStats& load = reader.stats();
  // A store's map is not all in memory: its counts are the store's.
  const OccupancyMap::Counts counts = storeRun ? storeRun->counts() : mapped.counts;
  const double raysPerSecond = integrateSeconds > 0 ? double(stats.rays) / integrateSeconds : 0.0;
  if (options.json) {
    Json summary = {{"rays", stats.rays},
                    {"samples", load.points},
                    {"skipped_non_finite", load.skippedNonFinite},
                    {"skipped_outside_trajectory", load.skippedOutsideTrajectory},
                    {"skipped_backwards", load.skippedBackwards},
                    {"skipped_in_box", load.skippedInBox},
                    {"skipped_near_sensor", load.skippedNearSensor},
                    {"clipped_rays", stats.clippedRays},
                    {"rejected_rays", stats.rejectedRays},
                    {"rejected_too_far", stats.rejectedTooFar},
                    {"rejected_non_finite", stats.rejectedNonFinite},
                    {"rejected_non_finite_intensity", stats.rejectedIntensity},
                    {"input_warnings", reader.warnings()},
                    {"first_rejected_ray", stats.firstRejected ? Json(rejectedRayText(*stats.firstRejected)) : Json(nullptr)},
                    {"voxel_updates", stats.voxelUpdates},
                    {"dropped_updates", stats.droppedUpdates},
                    {"cas_retries", stats.casRetries},
                    {"region_chunks", stats.regionChunks},
                    {"rewalked_segments", stats.rewalkedSegments},
                    {"occupied_voxels", counts.occupied},
                    {"free_voxels", counts.free},
                    {"regions", counts.regions},
                    {"wall_s", rounded(wall, 4)},
                    {"rays_per_s", rounded(raysPerSecond, 1)},
                    {"device", device},
                    {"batch_size", batchSize},
                    {"update_order", updateOrderName(args.integration.order)},
                    {"ndt", ndtModeName(args.integration.ndt.mode)},
                    {"clearance_range", args.withClearance ? Json(args.clearance.range) : Json(nullptr)},
                    {"clearance_regions", clearance.regions},
                    {"clearance_s", rounded(clearance.seconds, 4)},
                    {"ndt_fold_invocations", stats.ndtFoldInvocations},
                    {"ndt_sample_voxels", stats.ndtSampleVoxels},
                    {"output", written},
                    {"peak_rss_mb", peakResidentMb()},
                    {"memory", gpuRun ? deviceMemoryJson(context.device()) : Json(nullptr)}};
    if (storeRun) {
      const StoreMappingStats& st = storeRun->stats();
      summary["store"] = {{"resumed_from_rays", storeRun->resumeRays()},
                          {"checkpoints", st.checkpoints},
                          {"checkpoint_s", rounded(st.checkpointSeconds, 4)},
                          {"longest_checkpoint_s", rounded(st.longestCheckpointSeconds, 4)},
                          {"write_s", rounded(st.writeSeconds, 4)},
                          {"longest_write_s", rounded(st.longestWriteSeconds, 4)},
                          {"longest_write_regions", st.longestWriteRegions},
                          {"fold_s", rounded(st.foldSeconds, 4)},
                          {"regions_written", st.regionsWritten},
                          {"evictions", st.evictions},
                          {"fetches", st.fetches},
                          {"fetch_s", rounded(st.fetchSeconds, 4)},
                          {"host_map_peak_mb", rounded(double(st.peakHostBytes) / double(1 << 20), 2)}};
    }
    if (options.profile) addHostProfileJson(summary, reader, gpuRun);
    if (options.profile && gpuRun) addStartupJson(summary, context, runStart);
    printJson(summary);
  } else {
    std::printf("%s\n", reader.summary().c_str());
    std::printf("rays %s, samples %s, voxel updates %s, dropped updates %s, clipped rays %s\n", withCommas(stats.rays).c_str(),
                withCommas(load.points).c_str(), withCommas(stats.voxelUpdates).c_str(),
                withCommas(stats.droppedUpdates).c_str(), withCommas(stats.clippedRays).c_str());
    if (const std::string why = raysAndSamplesText(load, stats); !why.empty()) std::printf("%s\n", why.c_str());
    if (stats.rejectedRays > 0)
      std::printf("rejected rays %s (skipped: %s too far, %s non-finite, %s with a NaN/inf intensity; first: %s)\n",
                  withCommas(stats.rejectedRays).c_str(), withCommas(stats.rejectedTooFar).c_str(),
                  withCommas(stats.rejectedNonFinite).c_str(), withCommas(stats.rejectedIntensity).c_str(),
                  rejectedRayText(*stats.firstRejected).c_str());
    if (stats.ndtSampleVoxels > 0)
      std::printf("NDT hit fold: %s invocations for %s distinct sample voxels (%.4f per voxel; each batch's last "
                  "workgroup pads to 64)\n",
                  withCommas(stats.ndtFoldInvocations).c_str(), withCommas(stats.ndtSampleVoxels).c_str(),
                  double(stats.ndtFoldInvocations) / double(stats.ndtSampleVoxels));
    if (args.withClearance)
      std::printf("clearance within %s m (%s): %s regions in %.3f s (%.2f ms per region)\n", formatNumber(args.clearance.range).c_str(),
                  gpuRun ? clearanceTechniqueName(args.clearance.technique) : "exact, CPU reference", withCommas(clearance.regions).c_str(), clearance.seconds,
                  clearance.regions ? clearance.seconds * 1e3 / double(clearance.regions) : 0.0);
    std::printf("occupied voxels %s, free voxels %s, regions %s\n", withCommas(counts.occupied).c_str(),
                withCommas(counts.free).c_str(), withCommas(counts.regions).c_str());
    if (storeRun) {
      const StoreMappingStats& st = storeRun->stats();
      std::printf("store %s: %s checkpoints (%.3f s in all with their syncs, writing %.3f s; longest write %.3f s for %s "
                  "regions), %s regions written, %s dropped from host memory and %s read back; host map at most %.1f MB; "
                  "peak resident memory %d MB%s\n",
                  redactedStoreName(args.store).c_str(), withCommas(st.checkpoints).c_str(), st.checkpointSeconds, st.writeSeconds,
                  st.longestWriteSeconds, withCommas(st.longestWriteRegions).c_str(),
                  withCommas(st.regionsWritten).c_str(), withCommas(st.evictions).c_str(), withCommas(st.fetches).c_str(),
                  double(st.peakHostBytes) / double(1 << 20), peakResidentMb(),
                  storeRun->resumed() ? (", resumed after " + withCommas(storeRun->resumeRays()) + " rays").c_str() : "");
    }
    std::printf("wall %.2f s (integration %.2f s), %s rays/s, %s voxel updates/s -> %s\n", wall, integrateSeconds,
                formatSignificant(raysPerSecond).c_str(),
                formatSignificant(integrateSeconds > 0 ? double(stats.voxelUpdates) / integrateSeconds : 0.0).c_str(),
                written.c_str());
  }
  // With --json, --profile's figures are fields of the summary (above): stdout stays JSON.
  if (options.profile && !options.json) printHostProfile(reader, gpuRun);
  if (options.profile && !options.json && gpuRun) {
    std::printf("\nGPU time per pass:\n");
    context.scheduler().profile().print(std::cout);
    std::printf("\n%s", memoryReport(context.device()).c_str());
    std::printf("%s", startupText(context, runStart).c_str());
  }
  for (const std::string& warning : reader.warnings()) std::fprintf(stderr, "voxen map: warning: %s\n", warning.c_str());
  if (stats.rejectedRays > 0)
    std::fprintf(stderr, "voxen map: warning: %llu rays were skipped (first: %s)\n", (unsigned long long)stats.rejectedRays,
                 rejectedRayText(*stats.firstRejected).c_str());
  if (stats.droppedUpdates > 0)
    std::fprintf(stderr, "voxen map: warning: %llu voxel updates were dropped after the bounded CAS retries\n",
                 (unsigned long long)stats.droppedUpdates);
  return 0;
}

CommandRun setupMap(CLI::App& command) {
  auto args = std::make_shared<MapArgs>();
  addMapOptions(command, *args);
  return [args](const CommonOptions& options) { return mapCloud(options, *args); };
}

}  // namespace

static CommandRegistration registration{"map", "rays from a point cloud (+ trajectory) into an occupancy map file",
                                        &setupMap,
                                        Uses::Gpu | Uses::Profile | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

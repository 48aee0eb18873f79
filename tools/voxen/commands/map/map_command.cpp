// `voxen map`: a point cloud (plus trajectory) or a recording to an occupancy map file or a
// region store, on the GPU, or on the CPU reference where --device auto (the default) finds
// it the faster start for a small input with the same map (or with --cpu, the CPU reference in
// the GPU's order; with --cpu-sequential, ray after ray, as OHM and OctoMap do): the command line
// parsed and checked (map_options.cpp, map_store_run.cpp), the run made by voxen::MappingRun
// (voxen/mapping_run.hpp) with progress and Ctrl-C here, and the summary (map_report.cpp).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "commands/clearance_cli.hpp"
#include "commands/map/map_args.hpp"
#include "commands/map/map_report.hpp"
#include "ndt_options.hpp"
#include "output_checks.hpp"
#include "pcd_viewpoint_option.hpp"
#include "report/error_report.hpp"
#include "report/progress.hpp"
#include "report/text_format.hpp"
#include "stop_request.hpp"
#include "voxen/context.hpp"
#include "voxen/heightmap/heightmap_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/mapping_run.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

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

// Where the run maps: --cpu and --cpu-sequential the CPU reference; --device gpu (or a named
// device) and the flags only the GPU acts on (--validation, --hot-reload, --gpu-cache-mb) the
// GPU; otherwise --device auto, the run's choice (voxen::MappingBackend::Auto).
MappingBackend backendOf(const CommonOptions& options, const MapArgs& args) {
  if (args.cpu || args.cpuSequential) return MappingBackend::CpuReference;
  const std::string word = deviceWord(options);
  if (!word.empty() && word != "auto") return MappingBackend::Gpu;
  if (options.given.count("--validation") || options.given.count("--hot-reload") || args.gpuCache->count() > 0)
    return MappingBackend::Gpu;
  return MappingBackend::Auto;
}

// Flags that the chosen path would ignore are refused, naming both.
void refuseIneffectiveFlags(const CommonOptions& options, const MapArgs& args) {
  refuseNdtSettingsWithoutNdt(args.integration.ndt, args.ndtSettings);
  if (args.integration.ndt.mode != NdtMode::Off) args.integration.ndt.validate();
  if (!args.cpu && !args.cpuSequential) return;
  const std::string cpu = args.cpu ? "--cpu" : "--cpu-sequential";
  if (options.given.count("--device")) {
    const std::string word = deviceWord(options);
    const std::string device = "--device " + options.device.selector;
    throw UsageError(device + " and " + cpu + " contradict each other: " + cpu + " maps with the CPU reference, which opens no device; " +
                     (word == "auto" ? device + " lets voxen map choose"
                      : word == "gpu" ? device + " maps on the GPU"
                                      : device + " maps on that GPU") + ": give one of them");
  }
  options.refuseWith({"--validation", "--hot-reload"}, cpu, "the CPU reference opens no device");
  if (args.integration.order == UpdateOrder::OnePass)
    throw UsageError("--update-order one-pass has no effect with " + cpu +
                     ": the CPU reference integrates one ray at a time, which is --update-order sequential");
  if (args.gpuCache->count() > 0)
    throw UsageError("--gpu-cache-mb has no effect with " + cpu + " (the CPU reference has no GPU cache; the map's "
                     "memory is --memory-budget)");
}

// The run's progress lines on stderr: one per stage (each input's fingerprint, the mapping,
// the clearance), none with --quiet; fingerprints only when they take a while. The mapping's
// end also ends the stop request: from then on a signal ends the process as usual.
class RunProgress {
 public:
  RunProgress(bool show, bool showFingerprints, std::optional<StopRequest>& stopRequest)
      : show_(show), showFingerprints_(showFingerprints), stopRequest_(stopRequest) {}

  void operator()(const MappingProgress& p) {
    if (!current_ || p.stage != stage_ || p.setting != setting_) {
      stage_ = p.stage, setting_ = p.setting;
      const bool fingerprint = p.stage == MappingProgress::Stage::Fingerprint;
      const char* what = p.stage == MappingProgress::Stage::Mapping ? "mapping" : "clearance";
      current_.emplace(fingerprint ? "fingerprinting " + p.setting : std::string(what), p.total,
                       fingerprint ? showFingerprints_ && p.total >= (uint64_t(512) << 20) : show_, p.unit);
    }
    if (!p.finished) return current_->update(p.done);
    current_->finish(p.done);
    current_.reset();
    if (p.stage == MappingProgress::Stage::Mapping) stopRequest_.reset();
  }

 private:
  bool show_, showFingerprints_;
  std::optional<StopRequest>& stopRequest_;
  std::optional<Progress> current_;
  MappingProgress::Stage stage_ = MappingProgress::Stage::Mapping;
  std::string setting_;
};

// The run's options from the command line's (checked and settled by then).
MappingRunOptions runOptionsOf(const CommonOptions& options, const MapArgs& args, const OccupancyModel& model) {
  MappingRunOptions run{.input = args.cloud,
                        .reader = {.threads = unsigned(args.threads), .recording = args.recording, .pcdViewpoint = args.pcdViewpoint,
                                   .exclusion = exclusionOf(args)},
                        .mapper = {.model = model},
                        .output = args.output,
                        .store = args.store,
                        .session = args.session,
                        .storeMapping = args.storeMapping,
                        .resume = args.resume,
                        .inputSettingName = "--input",
                        .trajectorySettingName = "--trajectory",
                        .allowEmpty = args.allowEmpty};
  if (!args.trajectory.empty()) run.trajectory = args.trajectory;
  if (!args.origin.empty()) run.reader.origin = glm::dvec3(args.origin[0], args.origin[1], args.origin[2]);
  if (args.withClearance) run.clearance = args.clearance;
  run.mapper.extraLayers = args.layers;
  run.backend = backendOf(options, args);
  MapperRunOptions& mapper = run.mapper.run;
  mapper.integration = args.integration;
  mapper.gpu = args.gpu;
  mapper.window = args.window;
  mapper.decaySeconds = args.decaySeconds;
  mapper.regionLimitHint = options.memoryBudgetHint() + (args.integration.maxRange > 0.0 ? "" : " or set --max-range");
  if (!args.store.empty()) {
    run.storeSettings = runSettingsOf(args, model, ndtLayout(args.integration.ndt.mode, MapLayout::of(args.layers)));
    run.storeNotes = recordedOptions(args);
  }
  return run;
}

// What the run is about to do, on stderr.
void printRunSettings(const CommonOptions& options, const MapArgs& args, const OccupancyModel& model, MappingRun& run) {
  std::fprintf(stderr,
               "voxen map: %s (%s) -> %s on %s (%s model: hit %s, miss %s, clamp [%s, %s]; resolution %s m, "
               "region %d^3, layers: %s; %s; %s order, batches of %s rays; input threads %d; memory budget %s MB)\n",
               args.cloud.c_str(), run.reader().format().c_str(), (args.store.empty() ? args.output : redactedStoreName(args.store)).c_str(),
               run.deviceName().c_str(), args.preset.c_str(),
               // The model's settings as typed (shortest exact decimals), never rounded to 3 digits.
               formatFloat(model.hitProbability).c_str(), formatFloat(model.missProbability).c_str(),
               formatFloat(model.clampMin).c_str(), formatFloat(model.clampMax).c_str(), formatNumber(model.resolution).c_str(),
               model.regionSize, run.mapper().map().layout().names().c_str(), ndtSettingsText(args.integration.ndt).c_str(),
               updateOrderName(args.integration.order), withCommas(run.batchSize()).c_str(), args.threads,
               withCommas(options.memoryBudgetBytes() >> 20).c_str());
}

// A store run stopped by a signal at a chunk boundary, after its checkpoint. Exit status 128 +
// the signal, as a shell reports a process the signal ended.
int reportStoppedRun(const MappingStop& stopped, const MapArgs& args, const CommonOptions& options) {
  const std::string message = "stopped by " + std::string(StopRequest::signalName(stopped.request)) + ": checkpoint " +
                              std::to_string(stopped.checkpoint) + " kept in " + redactedStoreName(args.store) + " (" +
                              withCommas(stopped.raysTaken) + " rays of the input); resume with: " + resumeCommand(args);
  const int status = 128 + stopped.request;
  if (options.json) printError({"map", message, status, false, ""}, true, {});
  else std::fprintf(stderr, "voxen map: %s\n", message.c_str());
  return status;
}

// The run's errors in the tool's words: the flags that would change the outcome.
MappingRunStats runWithToolErrors(MappingRun& run, const MapArgs& args) {
  try {
    return run.run();
  } catch (const EmptyMappingError& e) {
    const std::string why = run.reader().summary() + ": " + emptyMapReasons(e.load, e.integration);
    if (!e.store)
      throw Error(why + "; so nothing was written to " + args.output + " (give --allow-empty to write the empty map anyway)");
    throw Error(why + "; the store " + redactedStoreName(args.store) + " holds an empty map (give --allow-empty to accept that)");
  } catch (const MappingClearanceError& e) {
    char retry[64];
    std::snprintf(retry, sizeof retry, "%g", args.clearance.range);
    throw Error(e.cause + " (the map is saved without its clearance in " + args.output + "; voxen clearance " + args.output +
                " --in-place --range " + retry + " computes it)");
  }
}

// --heightmap: the map's heightmap with the default settings, after the map is saved (a map
// with no surface is reported, the map kept).
void writeHeightmapAfterMapping(Mapper& mapper, const MapArgs& args, bool talk) {
  const auto start = std::chrono::steady_clock::now();
  Heightmap heightmap;
  try {
    heightmap = mapper.heightmap();
  } catch (const SettingError& e) {
    throw Error(e.naming("the heightmap's setting") + " (the map is saved in " + args.output + "; voxen heightmap " + args.output +
                " --output " + args.heightmapOutput + " with other settings makes it)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (the map is saved in " + args.output + ", no heightmap written)");
  }
  saveHeightmap(heightmap, args.heightmapOutput);
  if (talk)
    std::fprintf(stderr, "voxen map: heightmap %u x %u columns, %u levels, in %.2f s -> %s\n", heightmap.width(),
                 heightmap.height(), heightmap.levels(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), args.heightmapOutput.c_str());
}

// Parse (and --resume), check, run, report.
int mapCloud(const CommonOptions& options, MapArgs& args) {
  if (!args.live.url.empty()) return mapLive(options, args);  // a stream (which refuses --tsdf)
  if (args.depth.tsdf && tsdfInputHoldsClouds(args)) return mapCloudTsdf(options, args);  // ray integration
  if (args.depth.tsdf) return mapDepth(options, args);  // which refuses --resume: a depth run keeps no checkpoint
  if (args.depth.colour || !args.depth.colourTopic.empty())
    throw UsageError("--color goes with --tsdf (a recording's colour images into the TSDF's tsdf_colour layer)");
  if (args.resume) takeRecordedOptions(args);
  if (!args.live.url.empty()) return mapLive(options, args);  // a resumed stream (its options taken above)
  if (args.cloud.empty() && args.input.empty()) throw UsageError("--input FILE_OR_FOLDER (or --cloud CLOUD.ply) is required");
  const std::string inputFlag = args.input.empty() ? "--cloud" : "--input";
  if (!args.input.empty()) args.cloud = args.input;
  refuseIneffectiveFlags(options, args);
  settleNdtOrder(args);
  const OccupancyModel model = args.model();
  checkStoreOptions(args);
  if (!args.output.empty()) {
    std::vector<NamedPath> outputs{{"--output", args.output}};
    if (!args.heightmapOutput.empty()) outputs.push_back({"--heightmap", args.heightmapOutput});
    checkOutputs(outputs, {{inputFlag, args.cloud}, {"--trajectory", args.trajectory}});
  }
  else if (!isPostgresTarget(args.store)) checkOutputs({}, {{inputFlag, args.cloud}, {"--trajectory", args.trajectory}, {"--store", args.store}});
  checkCacheFitsBudget(options, args);
  if (args.withClearance) validateClearanceSettings(args.clearance, model, {{"range", "--clearance"}, {"axis-scale", ""}});
  const bool talk = !args.quiet && !options.json;
  std::optional<StopRequest> stopRequest;
  MappingRunOptions runOptions = runOptionsOf(options, args, model);
  runOptions.progress = RunProgress(!args.quiet, talk, stopRequest);
  runOptions.stopRequested = [&stopRequest] { return stopRequest ? stopRequest->signal() : 0; };
  // --serve: the map as it grows on a Foxglove WebSocket server (and the browser page).
  std::function<void(Mapper&)> finishServe;
  if (!args.live.serve.empty()) finishServe = serveFileRun(args, runOptions);
  // Fingerprints the inputs of a store run, then opens the reader: with worker threads,
  // reading starts while the device is set up. (The Context outlives the run's Mapper.)
  std::optional<Context> context;
  MappingRun run(std::move(runOptions));
  printSettingWarnings("map", run.reader().settingWarnings());
  context.emplace(options.contextOptions());
  run.start(*context);
  if (talk) printRunSettings(options, args, model, run);
  // A store run asked to stop (Ctrl-C, SIGTERM) checkpoints at the next chunk boundary and
  // ends there, saying which checkpoint it kept and how to resume.
  if (!args.store.empty()) {
    stopRequest.emplace();
    if (talk && run.resumed())
      std::fprintf(stderr, "voxen map: resuming the run in %s from its last checkpoint: %s rays are read again and passed over\n",
                   redactedStoreName(args.store).c_str(), withCommas(run.resumeRays()).c_str());
  }
  const MappingRunStats stats = runWithToolErrors(run, args);
  if (stats.stopped) return reportStoppedRun(*stats.stopped, args, options);
  if (finishServe) finishServe(run.mapper());
  reportMapRun(options, args, run, *context, stats);
  if (!args.heightmapOutput.empty()) writeHeightmapAfterMapping(run.mapper(), args, talk);
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

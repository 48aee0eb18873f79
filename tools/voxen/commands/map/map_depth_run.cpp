// `voxen map --input DEPTH_RECORDING --tsdf --output MAP.vxm`: a recording's depth images (ROS 1
// bag, MCAP, TUM RGB-D folder: voxen/input/depth_source.hpp) into the map's TSDF layer through
// Mapper::integrateDepth, on the GPU or (--cpu) with the CPU reference, then the map saved.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "commands/map/map_args.hpp"
#include "commands/map/map_depth_store.hpp"
#include "output_checks.hpp"
#include "report/json_output.hpp"
#include "report/progress.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/depth_source.hpp"
#include "voxen/mapper.hpp"

namespace voxen::cli {

namespace {

// The flags a depth run takes; every other flag of voxen map is about rays and is refused.
const std::set<std::string> kDepthRunFlags = {
    "--input", "--output", "--tsdf", "--tsdf-truncation", "--tsdf-max-weight", "--tsdf-weighting", "--depth-topic",
    "--camera-info-topic", "--camera-info", "--fixed-frame", "--max-range", "--resolution", "--region", "--cpu",
    "--gpu-cache-mb", "--quiet", "--color", "--color-topic"};

void refuseRayFlags(const MapArgs& args) {
  for (const CLI::Option* option : args.command->get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string flag = "--" + option->get_lnames().front();
    if (flag == "--help" || kDepthRunFlags.contains(flag) || option->get_group() == "Options for every command") continue;
    if (flag == "--store" || flag == "--session") continue;  // checkDepthStoreOptions (map_depth_store.hpp)
    throw UsageError(flag + " does not go with --tsdf (it is about point clouds into occupancy; a depth run takes " +
                     "--input, --output, --resolution, --max-range, --fixed-frame, --cpu and the --tsdf-* and depth flags)");
  }
}

}  // namespace

TsdfOptions tsdfOptionsOf(const MapArgs& args, double resolution) {
  TsdfOptions tsdf;
  tsdf.truncationVoxels = args.depth.truncation ? *args.depth.truncation / resolution : 4.0;
  tsdf.maxWeight = args.depth.maxWeight;
  tsdf.weighting = args.depth.weighting == "constant" ? TsdfWeighting::Constant : TsdfWeighting::LinearDropOff;
  if (args.integration.maxRange > 0) tsdf.maxRange = args.integration.maxRange;
  try {
    tsdf.validate(resolution);
  } catch (const SettingError& e) {
    throw UsageError(e.naming("--tsdf-truncation"));  // the rule says the band in voxels and metres
  }
  return tsdf;
}

int mapDepth(const CommonOptions& options, MapArgs& args) {
  const bool toStore = checkDepthStoreOptions(args);
  refuseRayFlags(args);
  if (args.input.empty()) throw UsageError("--tsdf needs --input DEPTH_RECORDING (a ROS 1 bag, an MCAP file or a TUM RGB-D folder)");
  if (!toStore && args.output.empty()) throw UsageError("--tsdf needs --output MAP.vxm (or --store STORE)");
  if (!toStore) checkOutputs({{"--output", args.output}}, {{"--input", args.input}});
  const OccupancyModel model = args.model();
  const TsdfOptions tsdf = tsdfOptionsOf(args, model.resolution);
  DepthSourceOptions sourceOptions;
  sourceOptions.depthTopic = args.depth.depthTopic;
  sourceOptions.cameraInfoTopic = args.depth.cameraInfoTopic;
  sourceOptions.cameraInfoFile = args.depth.cameraInfoFile;
  sourceOptions.fixedFrame = args.recording.fixedFrame;
  sourceOptions.maxRange = args.integration.maxRange;
  const bool colour = args.depth.colour || !args.depth.colourTopic.empty();  // a named topic implies --color
  sourceOptions.withColour = colour;
  sourceOptions.colourTopic = args.depth.colourTopic;
  DepthSource source(args.input, sourceOptions);
  const DepthSourceInfo& info = source.info();
  const bool talk = !args.quiet && !options.json;

  Context context(options.contextOptions());
  // --device auto (no device named) on a CPU driver: the CPU reference, the same voxels bit
  // for bit and faster there (the blocks on the machine's cores, no driver in between).
  const bool autoCpu = !args.cpu && deviceLeftToAuto(options) && context.deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const bool onCpu = args.cpu || autoCpu;
  MapperOptions mapperOptions{.model = model};
  mapperOptions.extraLayers = colour ? LayerSet{kTsdfLayer, kTsdfColourLayer} : LayerSet{kTsdfLayer};
  mapperOptions.run.backend = onCpu ? MapperBackend::CpuReference : MapperBackend::Gpu;
  mapperOptions.run.gpu = args.gpu;
  Mapper mapper(context, mapperOptions);
  const std::string path = onCpu ? (autoCpu ? "cpu (device auto)" : "cpu") : "gpu";
  if (talk)
    std::fprintf(stderr, "voxen map --tsdf: %s, %s (%s), %llu images of %u x %u; voxel %g m, truncation %g voxels, %s\n",
                 info.format.c_str(), info.topic.empty() ? "depth" : info.topic.c_str(), info.encoding.c_str(),
                 (unsigned long long)info.images, info.intrinsics.width, info.intrinsics.height, model.resolution,
                 tsdf.truncationVoxels,
                 onCpu ? (autoCpu ? ("CPU reference (--device auto: " + context.deviceInfo().name + " is a CPU driver)").c_str()
                                  : "CPU reference")
                       : ("GPU " + context.deviceInfo().name).c_str());
  Progress progress("voxen map --tsdf", info.images, talk, "frames");
  const auto start = std::chrono::steady_clock::now();
  DepthFrame frame;
  uint64_t frames = 0, blocks = 0;
  while (source.next(frame)) {
    blocks += mapper.integrateDepth(frame, tsdf).blocks;
    progress.update(++frames);
  }
  mapper.sync();
  progress.finish(frames);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (frames == 0)
    throw Error(args.input + ": no depth frame could be posed (" + std::to_string(source.stats().skippedOutsidePoses) +
                " outside the poses, " + std::to_string(source.stats().skippedBackwards) + " out of order): no map written");
  // A store is written once, here, with the whole map (map_depth_store.hpp).
  const std::string written = toStore ? saveDepthMapToStore(mapper.map(), args) : args.output;
  if (!toStore) mapper.save(args.output);
  const uint64_t regions = mapper.map().regions().size();
  const DepthSourceStats& stats = source.stats();
  if (options.json) {
    printJson(Json{{"input", args.input},
                   {"output", written},
                   {"frames", frames},
                   {"skipped_outside_poses", stats.skippedOutsidePoses},
                   {"skipped_backwards", stats.skippedBackwards},
                   {"blocks", blocks},
                   {"regions", regions},
                   {"seconds", seconds},
                   {"frames_per_s", seconds > 0 ? double(frames) / seconds : 0.0},
                   {"path", path},
                   {"tsdf_settings", tsdf.settingsText()},
                   {"frames_with_color", stats.framesWithColour},
                   {"frames_without_color", stats.framesWithoutColour}});
  } else if (!args.quiet) {
    std::printf("voxen map --tsdf: %llu frames (%llu skipped) in %.2f s (%.1f frames/s), %llu blocks, %llu regions -> %s\n",
                (unsigned long long)frames, (unsigned long long)(stats.skippedOutsidePoses + stats.skippedBackwards), seconds,
                seconds > 0 ? double(frames) / seconds : 0.0, (unsigned long long)blocks, (unsigned long long)regions,
                written.c_str());
    if (colour)
      std::printf("colour: %llu frames with a colour image (%s), %llu without one within the time tolerance\n",
                  (unsigned long long)stats.framesWithColour, info.colourTopic.c_str(), (unsigned long long)stats.framesWithoutColour);
  }
  return 0;
}

}  // namespace voxen::cli

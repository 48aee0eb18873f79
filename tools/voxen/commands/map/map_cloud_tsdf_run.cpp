// `voxen map --input CLOUD --tsdf --output MAP.vxm`: a point cloud recording's rays (PLY, PCD,
// KITTI, a ROS 1 bag's or MCAP file's PointCloud2 clouds: voxen/input/ray_source.hpp) into the
// map's TSDF layer by ray integration (voxen/tsdf/tsdf_rays.hpp), on the GPU through one
// GpuTsdfRayIntegrator for the whole run (its regions stay resident between scans, synced once at
// the end; Mapper::integrateCloudTsdf makes one per scan) or (--cpu) with the CPU reference,
// then the map saved.
// Depth images (a TUM RGB-D folder, a recording with depth image topics) keep the projective
// run (map_depth_run.cpp).
//
// Scans are the unit of ray integration (a voxel folds its scan's rays once, as their weighted
// mean): the run cuts the cloud into scans of kTsdfScanRays rays in the reader's order, which
// does not depend on --threads, so the map does not either.
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <string>

#include "commands/map/map_args.hpp"
#include "output_checks.hpp"
#include "report/json_output.hpp"
#include "report/progress.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/input_format.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"

namespace voxen::cli {

namespace {

constexpr size_t kTsdfScanRays = 65536;

// The flags a cloud TSDF run takes; every other flag of voxen map is refused by name.
const std::set<std::string> kCloudTsdfFlags = {
    "--input", "--cloud", "--output", "--trajectory", "--tsdf", "--tsdf-truncation", "--tsdf-max-weight", "--tsdf-weighting",
    "--cloud-topic", "--fixed-frame", "--sensor-frame", "--max-range", "--resolution", "--region", "--cpu", "--gpu-cache-mb",
    "--threads", "--quiet"};

void refuseOtherFlags(const MapArgs& args) {
  for (const CLI::Option* option : args.command->get_options()) {
    if (option->count() == 0 || option->get_lnames().empty()) continue;
    const std::string flag = "--" + option->get_lnames().front();
    if (flag == "--help" || kCloudTsdfFlags.contains(flag) || option->get_group() == "Options for every command") continue;
    throw UsageError(flag + " does not go with --tsdf on a point cloud (ray integration into the TSDF takes --input or "
                            "--cloud, --trajectory, --output, --resolution, --region, --max-range, --cloud-topic, "
                            "--fixed-frame, --sensor-frame, --threads, --cpu and the --tsdf-* flags)");
  }
}

void report(const CommonOptions& options, const MapArgs& args, const std::string& input, const TsdfScanStats& stats,
            uint64_t scans, uint64_t regions, double seconds, const std::string& path, const TsdfOptions& tsdf) {
  if (options.json) {
    printJson(Json{{"input", input},
                   {"output", args.output},
                   {"scans", scans},
                   {"scan_rays", kTsdfScanRays},
                   {"rays", stats.rays},
                   {"rays_skipped", stats.raysSkipped},
                   {"blocks", stats.blocks},
                   {"regions", regions},
                   {"seconds", seconds},
                   {"rays_per_s", seconds > 0 ? double(stats.rays) / seconds : 0.0},
                   {"path", path},
                   {"tsdf_settings", tsdf.settingsText()}});
  } else if (!args.quiet) {
    std::printf("voxen map --tsdf: %llu rays in %llu scans (%llu without a measurement) in %.2f s (%.0f rays/s), %llu blocks, "
                "%llu regions -> %s\n",
                (unsigned long long)stats.rays, (unsigned long long)scans, (unsigned long long)stats.raysSkipped, seconds,
                seconds > 0 ? double(stats.rays) / seconds : 0.0, (unsigned long long)stats.blocks, (unsigned long long)regions,
                args.output.c_str());
  }
}

}  // namespace

bool tsdfInputHoldsClouds(const MapArgs& args) {
  if (!args.cloud.empty()) return true;
  if (args.input.empty()) return false;
  InputFormat format;
  try {
    format = detectInputFormat(args.input);
  } catch (const Error&) {
    return false;  // the depth run says what it reads, and that this is none of it
  }
  switch (format) {
    case InputFormat::TumRgbd:
      return false;
    case InputFormat::RosBag:
    case InputFormat::Mcap:
      // A recording: its clouds when a cloud topic is named or it has no depth images.
      if (!args.recording.cloudTopic.empty()) return true;
      if (!args.depth.depthTopic.empty()) return false;
      return inspectRecording(args.input).depthTopics.empty();
    default:
      return true;
  }
}

int mapCloudTsdf(const CommonOptions& options, MapArgs& args) {
  refuseOtherFlags(args);
  const std::string input = args.input.empty() ? args.cloud : args.input, inputFlag = args.input.empty() ? "--cloud" : "--input";
  if (args.output.empty()) throw UsageError("--tsdf needs --output MAP.vxm");
  checkOutputs({{"--output", args.output}}, {{inputFlag, input}, {"--trajectory", args.trajectory}});
  const OccupancyModel model = args.model();
  const TsdfOptions tsdf = tsdfOptionsOf(args, model.resolution);
  RayReaderOptions readerOptions;
  readerOptions.threads = unsigned(std::max(1, args.threads));
  readerOptions.recording = args.recording;
  RayReader reader(input, args.trajectory.empty() ? std::nullopt : std::optional<std::filesystem::path>(args.trajectory),
                   readerOptions);
  const bool talk = !args.quiet && !options.json;

  Context context(options.contextOptions());
  // --device auto on a CPU driver: the CPU reference, the same voxels bit for bit.
  const bool autoCpu = !args.cpu && deviceLeftToAuto(options) && context.deviceInfo().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const bool onCpu = args.cpu || autoCpu;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  std::optional<GpuTsdfRayIntegrator> gpu;
  if (!onCpu) gpu.emplace(context.scheduler(), map, tsdf, args.gpu.cacheBytes);
  const std::string path = onCpu ? (autoCpu ? "cpu (device auto)" : "cpu") : "gpu";
  if (talk)
    std::fprintf(stderr, "voxen map --tsdf: %s rays, scans of %zu rays; voxel %g m, truncation %g voxels, range %g m, %s\n",
                 reader.format().c_str(), kTsdfScanRays, model.resolution, tsdf.truncationVoxels, tsdf.maxRange,
                 onCpu ? "CPU reference" : ("GPU " + context.deviceInfo().name).c_str());
  Progress progress("voxen map --tsdf", reader.totalPoints(), talk, "rays");
  const auto start = std::chrono::steady_clock::now();
  std::vector<Ray> scan;
  TsdfScanStats stats;
  uint64_t scans = 0;
  while (reader.read(scan, kTsdfScanRays) > 0) {
    stats += gpu ? gpu->integrate(scan) : integrateRaysTsdfCpu(map, scan, tsdf);
    ++scans;
    progress.update(stats.rays + stats.raysSkipped);
    scan.clear();
  }
  if (gpu) gpu->sync();
  progress.finish(stats.rays + stats.raysSkipped);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (stats.rays == 0)
    throw Error(reader.summary() + ": no ray measured a surface within " + std::to_string(tsdf.maxRange) +
                " m (--max-range): no map written");
  saveMap(map, args.output);
  report(options, args, input, stats, scans, map.regions().size(), seconds, path, tsdf);
  return 0;
}

}  // namespace voxen::cli

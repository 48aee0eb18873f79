// `voxen map`'s flags, bound to MapArgs, in the groups --help shows.
#include "commands/map/map_args.hpp"

#include "ndt_options.hpp"
#include "option_checks.hpp"
#include "pcd_viewpoint_option.hpp"
#include "update_order_option.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/map/map.hpp"
#include "voxen/mapping_run.hpp"

namespace voxen::cli {

OccupancyModel MapArgs::model() const {
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

namespace {

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
  command.add_option("--window", args.window,
                     "keep only the regions within R metres of the sensor (its latest position): a moving robot's local "
                     "map; farther regions are dropped, or paged out to --store")
      ->check(numberIn(0.0, 1e6, "metres", LowEnd::Open))
      ->type_name("R")
      ->group(rays);
  command.add_option("--decay-s", args.decaySeconds,
                     "occupancy decay: forget (back to unobserved) every voxel no ray touched in the last S seconds of "
                     "ray time, checked before and after every batch; adds the touch-time layer (not with --store)")
      ->check(numberIn(0.0, 1e9, "seconds"))
      ->type_name("S")
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

// A robot's stream (--live) and the map served as it grows (--serve).
void addLiveOptions(CLI::App& command, MapArgs::Live& live) {
  const std::string group = "Live (Foxglove WebSocket)";
  command.add_option("--live", live.url,
                     "map a robot's stream instead of a file: a Foxglove WebSocket server (foxglove_bridge, voxen play), "
                     "its point clouds and tf, until --duration or Ctrl-C")
      ->type_name("ws://HOST:PORT")->group(group);
  command.add_option("--serve", live.serve,
                     "serve the map as it grows on a Foxglove WebSocket server (and a browser page) at [HOST]:PORT "
                     "(:8765 listens on 127.0.0.1 only)")
      ->type_name("[HOST]:PORT")->group(group);
  command.add_option("--serve-rate", live.serveRate, "map publications per second with --serve")
      ->check(numberIn(0.0, 100.0, "per second", LowEnd::Open))->capture_default_str()->group(group);
  command.add_option("--serve-linger", live.serveLinger,
                     "with --serve: keep serving the finished map this many seconds after the run (it is saved first; "
                     "Ctrl-C ends it sooner)")
      ->check(numberIn(0.0, 1e9, "seconds"))->group(group);
  command.add_option("--topic-timeout", live.topicTimeout,
                     "--live: seconds connected without a cloud before the run stops, naming the topics the server has")
      ->check(numberIn(0.0, 86400.0, "seconds", LowEnd::Open))->capture_default_str()->group(group);
  command.add_option("--live-queue", live.queueClouds,
                     "--live: clouds waiting for the mapper before the oldest is dropped (whole, and counted)")
      ->check(integerIn(1, 1000))->capture_default_str()->group(group);
}

// Depth images or point clouds into a TSDF (--tsdf): the TSDF runs' own flags (map_depth_run.cpp,
// map_cloud_tsdf_run.cpp).
void addDepthOptions(CLI::App& command, MapArgs::Depth& depth) {
  const std::string group = "Depth images into a TSDF (--tsdf)";
  command.add_flag("--tsdf", depth.tsdf,
                   "map into a truncated signed distance field (the map's tsdf layer) instead of occupancy: --input's depth "
                   "images (a ROS 1 bag or MCAP file with a depth image topic, a TUM RGB-D folder) projectively, or a point "
                   "cloud's rays (--cloud, PLY, PCD, KITTI, a recording's clouds) by ray integration, in scans of 65,536 rays")
      ->group(group);
  command.add_option("--tsdf-truncation", depth.truncation, "the band around the surface, metres (default 4 voxels)")
      ->check(numberIn(1e-6, 1e3, "metres"))
      ->type_name("M")
      ->group(group);
  command.add_option("--tsdf-max-weight", depth.maxWeight, "measurements at which a voxel's weight stops growing")
      ->check(numberIn(1.0, 1e6, "measurements"))
      ->capture_default_str()
      ->group(group);
  command.add_option("--tsdf-weighting", depth.weighting, "constant, or linear-drop-off behind the surface")
      ->check(CLI::IsMember({"constant", "linear-drop-off"}))
      ->capture_default_str()
      ->group(group);
  command.add_option("--depth-topic", depth.depthTopic, "the depth image topic (default: the only one)")
      ->type_name("TOPIC")
      ->group(group);
  command.add_option("--camera-info-topic", depth.cameraInfoTopic, "the camera's CameraInfo topic (default: the depth topic's camera_info sibling)")
      ->type_name("TOPIC")
      ->group(group);
  command.add_option("--camera-info", depth.cameraInfoFile,
                     "a TUM RGB-D folder's camera, as ROS camera_calibration YAML (default: FOLDER/camera_info.yaml)")
      ->type_name("FILE.yaml")
      ->group(group);
  command.add_flag("--color", depth.colour,
                   "also the recording's colour images (registered to the depth images: a bag's or MCAP's colour topic, a "
                   "TUM folder's rgb/), averaged per voxel into the map's tsdf_colour layer; voxen mesh then colours the vertices")
      ->group(group);
  command.add_option("--color-topic", depth.colourTopic, "the colour image topic (default: the only one; implies --color)")
      ->type_name("TOPIC")
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

}  // namespace

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
  addLiveOptions(command, args.live);
  addDepthOptions(command, args.depth);
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
  auto* cpu = command.add_flag(
      "--cpu", args.cpu,
      "map with the CPU reference instead of the GPU (same --update-order). Without --cpu or --device, voxen map "
      "(--device auto) maps on the CPU reference by itself when the input's ray count is known up front (PLY, PCD, "
      "KITTI; not bags or MCAP) and at most " + formatCount(kAutoCpuMaxRays) + ", and the CPU reference gives the GPU's map "
      "bit for bit: the sequential order without --stop-on-occupied, or two-phase within one batch; no --ndt, no "
      "--clearance, no --validation, --hot-reload or --gpu-cache-mb. A real GPU takes 0.16-0.2 s to start (an H100), about "
      "what the CPU reference takes for that many rays; on lavapipe the CPU reference is faster at every size. "
      "--device gpu maps on the GPU always");
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
  command.add_option("--heightmap", args.heightmapOutput,
                     "after mapping, write the map's heightmap here: the surfaces a 0.8 m robot can stand on per 2D column, up "
                     "to 4 levels, with slope, steps and cost (voxen heightmap has every setting)")
      ->type_name("HM.vxh");
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

}  // namespace voxen::cli

// `voxen generate`: a synthetic lidar run (a sensor moving through a procedural building of
// rooms, corridor and objects, or with --scene terrain round ramps, a bridge, a table and steps)
// written as a PLY cloud (x, y, z, time, intensity) and a trajectory text.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "generate_depth.hpp"
#include "report/json_output.hpp"
#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/text_format.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/testdata/lidar_recording.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

struct GenerateArgs {
  LidarConfig lidar;
  std::string cloud, trajectory;
  std::string recording, compression;  // --recording and its --recording-compression
  std::string scene = "building";  // --scene: building or terrain
  uint64_t seed = 1;
  double trajectoryRate = 100.0;
  CLI::Option* trajectoryRateOption = nullptr;  // given or not: it needs --trajectory
  CLI::Option* heightOption = nullptr;          // not given: the scene's sensor height
  DepthGenerateArgs depth;                      // --depth-recording, --truth-mesh and the camera's flags
};

// The scene, and the lidar's height for it when --height is not given.
SyntheticScene makeScene(const GenerateArgs& args, LidarConfig& lidar) {
  if (args.scene != "terrain") return SyntheticScene::generate(args.seed);
  if (args.heightOption->count() == 0) lidar.sensorHeight = TerrainDesign::sensorHeight;
  return SyntheticScene::terrain(args.seed);
}

void printScene(const SyntheticScene& scene) {
  if (scene.kind == SceneKind::Terrain)
    std::printf("terrain scene: ramps of %g and %g deg, a bridge over a passage, a table, steps of %g and %g m; ",
                TerrainDesign::gentleRampDegrees, TerrainDesign::steepRampDegrees, TerrainDesign::lowStep,
                TerrainDesign::highStep);
  else
    std::printf("scene seed %llu: corridor and %zu rooms, %zu boxes, %zu cylinders, %zu spheres; ",
                (unsigned long long)scene.seed, scene.areas.size() - 1, scene.boxes.size(), scene.cylinders.size(),
                scene.spheres.size());
  std::printf("bounds (%.1f, %.1f, %.1f) to (%.1f, %.1f, %.1f) m; sensor path %.1f m per loop\n", scene.boundsMin.x,
              scene.boundsMin.y, scene.boundsMin.z, scene.boundsMax.x, scene.boundsMax.y, scene.boundsMax.z,
              scene.pathLength);
}

// The terrain's features by name with their plan rectangles, for --json (tests find them there).
Json sceneFeatures(const SyntheticScene& scene) {
  Json features = Json::array();
  if (scene.kind == SceneKind::Terrain)
    for (const SceneArea& area : scene.areas)
      features.push_back({{"name", area.name}, {"min", {area.min.x, area.min.y}}, {"max", {area.max.x, area.max.y}}});
  return features;
}

int generateRecording(const CommonOptions& options, const GenerateArgs& args);

int generate(const CommonOptions& options, const GenerateArgs& args) {
  if (isDepthRun(args.depth))
    return generateDepth(options, args.depth,
                         {args.seed, args.scene, args.compression, args.lidar.speed, args.lidar.sensorHeight,
                          args.lidar.scanRateHz, args.lidar.startTime, args.lidar.threads});
  if (!args.recording.empty()) return generateRecording(options, args);
  if (args.cloud.empty()) throw UsageError("--cloud OUT.ply (or --recording OUT.bag|OUT.mcap) is required");
  if (!args.compression.empty()) throw UsageError("--recording-compression has no effect without --recording");
  LidarConfig lidar = args.lidar;
  const std::string &cloud = args.cloud, &trajectory = args.trajectory;
  const uint64_t seed = args.seed;
  const double trajectoryRate = args.trajectoryRate;
  // Also refuses --trajectory naming the same file as --cloud (other than a device: /dev/null twice is fine).
  if (trajectory.empty() && args.trajectoryRateOption->count() > 0)
    throw UsageError("--trajectory-rate has no effect without --trajectory (no trajectory is written)");
  checkOutputs({{"--cloud", cloud}, {"--trajectory", trajectory}}, {});
  lidar.seed = seed;
  // One scan is held at a time (its rays and return flags): sized against the budget before
  // the run starts, so --rings 4096 --columns 1048576 is an error, not 240 GB of rays.
  try {
    checkMemoryBudget(uint64_t(lidar.raysPerScan()) * (sizeof(Ray) + sizeof(uint8_t)), options.memoryBudgetBytes(),
                      "one scan of --rings " + std::to_string(lidar.rings) + " x --columns " + std::to_string(lidar.columns) +
                          " rays",
                      options.memoryBudgetHint() + " or lower --rings or --columns");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const SyntheticScene scene = makeScene(args, lidar);
  if (scene.kind == SceneKind::Building && !(lidar.sensorHeight < scene.options.ceilingHeight)) {
    char message[96];
    std::snprintf(message, sizeof message, "--height: the sensor must be below the %g m ceiling, got %g",
                  scene.options.ceilingHeight, lidar.sensorHeight);
    throw UsageError(message);
  }

  const bool tty = ::isatty(STDERR_FILENO);
  if (!options.json) {
    printScene(scene);
    std::printf("lidar: %d rings x %d columns, %d scans at %g Hz (%s rays), fov %g deg, max range %g m, "
                "noise %g m, speed %g m/s\n",
                lidar.rings, lidar.columns, lidar.scans, lidar.scanRateHz, withCommas(lidar.rayCount()).c_str(),
                lidar.verticalFovDeg, lidar.maxRange, lidar.rangeNoiseStdDev, lidar.speed);
    std::fflush(stdout);
  }
  double lastReport = 0.0;
  bool reported = false;
  const auto summary = writeLidarRun(
      scene, lidar, cloud, trajectory, trajectoryRate, [&](const LidarScan& scan, const LidarRunSummary& so) {
        if (so.seconds - lastReport < 1.0 && scan.index + 1 != lidar.scans) return;
        if (!reported && scan.index + 1 == lidar.scans) return;  // short runs: no progress lines
        lastReport = so.seconds;
        reported = true;
        std::fprintf(stderr, "%s  scan %d/%d, %s rays, %.2f Mrays/s%s", tty ? "\r" : "", scan.index + 1, lidar.scans,
                     withCommas(so.rays).c_str(), so.rays / std::max(so.seconds, 1e-9) / 1e6, tty ? "" : "\n");
        std::fflush(stderr);
      });
  if (reported && tty) std::fprintf(stderr, "\n");
  const double rate = summary.rays / std::max(summary.seconds, 1e-9);
  const uint64_t cloudBytes = summary.cloudBytes;
  if (options.json) {
    printJson({{"cloud", cloud},
               {"trajectory", trajectory},
               {"seed", seed},
               {"scene", args.scene},
               {"features", sceneFeatures(scene)},
               {"sensor_height", lidar.sensorHeight},
               {"rings", lidar.rings},
               {"columns", lidar.columns},
               {"scans", lidar.scans},
               {"rays", summary.rays},
               {"points", summary.returns},
               {"no_returns", summary.noReturns},
               {"trajectory_samples", summary.trajectorySamples},
               {"cloud_bytes", cloudBytes},
               {"sensor_seconds", rounded(lidar.duration(), 6)},
               {"seconds", rounded(summary.seconds, 3)},
               {"rays_per_second", std::llround(rate)}});
    return 0;
  }
  std::printf("wrote %s: %s points (x y z time, binary PLY, %.1f MB); %s no-return rays beyond %g m left out\n",
              cloud.c_str(), withCommas(summary.returns).c_str(), cloudBytes / 1e6,
              withCommas(summary.noReturns).c_str(), lidar.maxRange);
  if (!trajectory.empty())
    std::printf("wrote %s: %s poses at %g Hz (time x y z qx qy qz qw)\n", trajectory.c_str(),
                withCommas(summary.trajectorySamples).c_str(), trajectoryRate);
  std::printf("%s rays over %.2f s of sensor time in %.2f s (%.2f Mrays/s)\n", withCommas(summary.rays).c_str(),
              lidar.duration(), summary.seconds, rate / 1e6);
  return 0;
}

// The run as a bag or MCAP file, and (optionally) the same points as PLY + trajectory.
int generateRecording(const CommonOptions& options, const GenerateArgs& args) {
  const std::string ext = std::filesystem::path(args.recording).extension().string();
  if (ext != ".bag" && ext != ".mcap") throw UsageError("--recording: " + args.recording + ": name it .bag (ROS 1) or .mcap (ROS 2)");
  if (!args.compression.empty()) {
    const bool bag = ext == ".bag";
    if (bag ? args.compression != "lz4" && args.compression != "bz2" : args.compression != "zstd" && args.compression != "lz4")
      throw UsageError("--recording-compression " + args.compression + ": a " + (bag ? "bag takes lz4 or bz2" : "MCAP file takes zstd or lz4"));
  }
  checkOutputs({{"--recording", args.recording}, {"--cloud", args.cloud}, {"--trajectory", args.trajectory}}, {});
  LidarConfig lidar = args.lidar;
  lidar.seed = args.seed;
  const SyntheticScene scene = makeScene(args, lidar);
  LidarRecordingOptions recording;
  recording.compression = args.compression;
  recording.tfRateHz = args.trajectoryRate;
  recording.plyPath = args.cloud;
  recording.trajectoryPath = args.trajectory;
  const bool tty = ::isatty(STDERR_FILENO);
  double lastReport = 0.0;
  const LidarRecordingSummary s = writeLidarRecording(scene, lidar, args.recording, recording,
                                                      [&](const LidarScan& scan, const LidarRecordingSummary& so) {
    if (so.seconds - lastReport < 1.0) return;
    lastReport = so.seconds;
    std::fprintf(stderr, "%s  scan %d/%d, %.2f Mpoints/s%s", tty ? "\r" : "", scan.index + 1, lidar.scans,
                 so.points / std::max(so.seconds, 1e-9) / 1e6, tty ? "" : "\n");
    std::fflush(stderr);
  });
  if (lastReport > 0.0 && tty) std::fprintf(stderr, "\n");
  if (options.json) {
    printJson({{"recording", args.recording}, {"cloud", args.cloud}, {"trajectory", args.trajectory}, {"clouds", s.clouds},
               {"points", s.points}, {"returns", s.returns}, {"transforms", s.transforms}, {"bytes", s.bytes},
               {"seconds", rounded(s.seconds, 3)}});
    return 0;
  }
  std::printf("wrote %s: %s clouds of %d x %d points on /points (%s returns), %s tf poses at %g Hz, %.1f MB\n",
              args.recording.c_str(), withCommas(s.clouds).c_str(), lidar.rings, lidar.columns, withCommas(s.returns).c_str(),
              withCommas(s.transforms).c_str(), args.trajectoryRate, s.bytes / 1e6);
  if (!args.cloud.empty()) std::printf("wrote %s: the same points in the map frame\n", args.cloud.c_str());
  if (!args.trajectory.empty()) std::printf("wrote %s: the tf poses of the lidar\n", args.trajectory.c_str());
  return 0;
}

CommandRun setupGenerate(CLI::App& command) {
  auto args = std::make_shared<GenerateArgs>();
  LidarConfig& lidar = args->lidar;
  command.add_option("--cloud", args->cloud, "the point cloud to write (x, y, z, time, intensity)")->type_name("OUT.ply");
  command.add_option("--recording", args->recording,
                     "also or instead: the run as a robot records it, a ROS 1 bag (.bag) or MCAP file (.mcap) of "
                     "PointCloud2 scans in the lidar frame with tf (map -> odom -> lidar); with --cloud and "
                     "--trajectory, those hold the recording's very points, so both map to the same bytes")
      ->type_name("OUT.bag|OUT.mcap");
  command.add_option("--recording-compression", args->compression, "bag: lz4 or bz2; MCAP: zstd or lz4")
      ->type_name("NAME");
  command.add_option("--trajectory", args->trajectory, "the sensor poses to write (time x y z qx qy qz qw)")->type_name("OUT.txt");
  command.add_option("--rings", lidar.rings, "lidar rings")->check(integerIn(1, 4096))->capture_default_str();
  command.add_option("--columns", lidar.columns, "rays per ring and scan")->check(integerIn(1, 1 << 20))->capture_default_str();
  command.add_option("--scans", lidar.scans, "scans to simulate")->check(integerIn(1, 1000000))->capture_default_str();
  command.add_option("--scene", args->scene,
                     "building: rooms along a corridor (from --seed); terrain: open ground with a 15 and a 40 degree "
                     "ramp, a bridge over a passage, a table, a 0.1 and a 0.4 m step (one loop is about 65 m: "
                     "--speed 3 --scans 220)")
      ->check(CLI::IsMember({"building", "terrain"}))
      ->capture_default_str();
  command.add_option("--seed", args->seed, "the procedural building and the noise")->check(naturalNumber())->capture_default_str();
  command.add_option("--max-range", lidar.maxRange, "rays beyond this are no-returns (metres)")
      ->check(numberIn(0.0, 1e6, "metres", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--rate", lidar.scanRateHz, "scans per second")->check(numberIn(0.0, 1e4, "scans per second", LowEnd::Open))->capture_default_str();
  command.add_option("--speed", lidar.speed, "sensor speed (m/s)")->check(numberIn(0.0, 100.0, "metres per second"))->capture_default_str();
  command.add_option("--fov", lidar.verticalFovDeg, "vertical field of view (degrees)")
      ->check(numberIn(0.0, 179.0, "degrees"))
      ->capture_default_str();
  args->heightOption = command.add_option("--height", lidar.sensorHeight, "sensor height above the floor (metres; 1.5 with --scene terrain)")
      ->check(numberIn(0.0, 1e6, "metres", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--noise", lidar.rangeNoiseStdDev, "range noise standard deviation (metres)")
      ->check(numberIn(0.0, 10.0, "metres"))
      ->capture_default_str();
  command.add_option("--start-time", lidar.startTime, "time stamp of the first ray (seconds)")
      ->check(numberIn(-1e12, 1e12, "seconds"))
      ->capture_default_str();
  args->trajectoryRateOption = command.add_option("--trajectory-rate", args->trajectoryRate, "poses per second in the trajectory")
      ->check(numberIn(0.0, 1e6, "poses per second", LowEnd::Open))
      ->capture_default_str();
  command.add_option("--threads", lidar.threads, "worker threads (0: one per core)")->check(integerIn(0, 256))->capture_default_str();
  addDepthGenerateOptions(command, args->depth);
  return [args](const CommonOptions& options) { return generate(options, *args); };
}

}  // namespace

static CommandRegistration registration{
    "generate", "write a synthetic lidar run (PLY cloud + trajectory) or depth-camera recording through a procedural building", &setupGenerate,
                                        Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli

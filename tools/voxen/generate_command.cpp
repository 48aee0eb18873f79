// `voxen generate`: a synthetic lidar run (a sensor moving through a procedural building of
// rooms, corridor and objects) written as a PLY cloud (x, y, z, time) and a trajectory text.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flag_reader.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"

namespace voxen::cli {

namespace {

constexpr const char* kUsage =
    "generate --cloud OUT.ply [--trajectory OUT.txt] [--rings 64] [--columns 1024] [--scans 20] [--seed 1]\n"
    "         [--max-range 30] [--rate 10] [--speed 1] [--fov 30] [--height 1.2] [--noise 0.01]\n"
    "         [--start-time 0] [--trajectory-rate 100] [--threads 0] [--json]";

}  // namespace

int generateCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  LidarConfig lidar;
  std::string cloud, trajectory;
  uint64_t seed = 1;
  double trajectoryRate = 100.0;
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& f = flags.flag();
    if (f == "--cloud") cloud = flags.text();
    else if (f == "--trajectory") trajectory = flags.text();
    else if (f == "--rings") lidar.rings = int(flags.integer(1, 4096));
    else if (f == "--columns") lidar.columns = int(flags.integer(1, 1 << 20));
    else if (f == "--scans") lidar.scans = int(flags.integer(1, 1000000));
    else if (f == "--seed") seed = flags.seed();
    else if (f == "--max-range") lidar.maxRange = flags.number(0.0, 1e6, true, "metres");
    else if (f == "--rate") lidar.scanRateHz = flags.number(0.0, 1e4, true, "Hz");
    else if (f == "--speed") lidar.speed = flags.number(0.0, 100.0, false, "m/s");
    else if (f == "--fov") lidar.verticalFovDeg = flags.number(0.0, 179.0, false, "degrees");
    else if (f == "--height") lidar.sensorHeight = flags.number(0.0, 1e6, true, "metres");
    else if (f == "--noise") lidar.rangeNoiseStdDev = flags.number(0.0, 10.0, false, "metres");
    else if (f == "--start-time") lidar.startTime = flags.number(-1e12, 1e12, false, "seconds");
    else if (f == "--trajectory-rate") trajectoryRate = flags.number(0.0, 1e6, true, "Hz");
    else if (f == "--threads") lidar.threads = unsigned(flags.integer(0, 256));
    else
      throw UsageError("unexpected argument '" + f + "'\nusage: voxen " + kUsage);
  }
  if (cloud.empty()) throw UsageError(std::string("--cloud OUT.ply is required\nusage: voxen ") + kUsage);
  if (!trajectory.empty() && fs::path(trajectory) == fs::path(cloud))
    throw UsageError("--trajectory must name a different file from --cloud");
  for (const std::string& file : {cloud, trajectory}) {
    if (file.empty()) continue;
    const fs::path parent = fs::path(file).parent_path();
    if (!parent.empty() && !fs::is_directory(parent))
      throw UsageError((file == cloud ? "--cloud" : "--trajectory") + std::string(": folder ") + parent.string() +
                       " does not exist");
  }
  lidar.seed = seed;
  const SyntheticScene scene = SyntheticScene::generate(seed);
  if (!(lidar.sensorHeight < scene.options.ceilingHeight)) {
    char message[96];
    std::snprintf(message, sizeof message, "--height: the sensor must be below the %g m ceiling, got %g",
                  scene.options.ceilingHeight, lidar.sensorHeight);
    throw UsageError(message);
  }

  const bool tty = ::isatty(STDERR_FILENO);
  if (!options.json) {
    std::printf("scene seed %llu: corridor and %zu rooms, %zu boxes, %zu cylinders, %zu spheres; "
                "bounds (%.1f, %.1f, %.1f) to (%.1f, %.1f, %.1f) m; sensor path %.1f m per loop\n",
                (unsigned long long)seed, scene.areas.size() - 1, scene.boxes.size(), scene.cylinders.size(),
                scene.spheres.size(), scene.boundsMin.x, scene.boundsMin.y, scene.boundsMin.z, scene.boundsMax.x,
                scene.boundsMax.y, scene.boundsMax.z, scene.pathLength);
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
  const uint64_t cloudBytes = fs::file_size(cloud);
  if (options.json) {
    std::printf("{\"cloud\":%s,\"trajectory\":%s,\"seed\":%llu,\"rings\":%d,\"columns\":%d,\"scans\":%d,"
                "\"rays\":%llu,\"points\":%llu,\"no_returns\":%llu,\"trajectory_samples\":%llu,\"cloud_bytes\":%llu,"
                "\"sensor_seconds\":%.6f,\"seconds\":%.3f,\"rays_per_second\":%.0f}\n",
                jsonString(cloud).c_str(), jsonString(trajectory).c_str(), (unsigned long long)seed, lidar.rings,
                lidar.columns, lidar.scans, (unsigned long long)summary.rays, (unsigned long long)summary.returns,
                (unsigned long long)summary.noReturns, (unsigned long long)summary.trajectorySamples,
                (unsigned long long)cloudBytes, lidar.duration(), summary.seconds, rate);
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

static CommandRegistration registration{
    "generate", "write a synthetic lidar run (PLY cloud + trajectory) through a procedural building",
    &generateCommand};

}  // namespace voxen::cli

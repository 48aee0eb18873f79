// `voxen generate --depth-recording ... [--truth-mesh ...]` (generate_depth.hpp): a depth
// camera's walk through the synthetic scene as a bag, an MCAP file or a TUM RGB-D folder, and
// the scene's true surface as a PLY mesh.
#include "generate_depth.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "option_checks.hpp"
#include "output_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/testdata/depth_recording.hpp"
#include "voxen/testdata/truth_mesh.hpp"

namespace voxen::cli {

namespace {

// The lidar run's flags, refused in a depth run as having no effect there.
constexpr const char* kLidarOnlyFlags[] = {"--cloud", "--recording", "--trajectory", "--rings",          "--columns",
                                           "--scans", "--fov",       "--max-range",  "--noise", "--trajectory-rate"};

void refuseLidarFlags(const DepthGenerateArgs& args) {
  for (const CLI::Option* option : args.lidarOnly)
    if (option->count() > 0)
      throw UsageError(option->get_name() + " is a lidar run's; a depth run (--depth-recording, --truth-mesh) takes "
                       "--frames, --depth-width, --depth-height, --hfov, --depth-noise, --max-depth");
}

SyntheticScene depthScene(const SharedGenerateValues& shared) {
  return shared.scene == "terrain" ? SyntheticScene::terrain(shared.seed) : SyntheticScene::generate(shared.seed);
}

// The camera from the flags: the lidar's shared flags where given, the camera's defaults otherwise.
DepthCameraConfig cameraFrom(const DepthGenerateArgs& args, const SharedGenerateValues& shared) {
  DepthCameraConfig camera = args.camera;
  camera.seed = shared.seed;
  camera.startTime = shared.startTime;
  camera.threads = shared.threads;
  if (args.speed->count() > 0) camera.speed = shared.speed;
  if (args.height->count() > 0) camera.cameraHeight = shared.height;
  if (args.rate->count() > 0) camera.rateHz = shared.rate;
  return camera;
}

void checkCompression(const std::string& recording, const std::string& compression) {
  if (compression.empty()) return;
  const DepthRecordingFormat format = depthRecordingFormat(recording);
  if (format == DepthRecordingFormat::TumFolder)
    throw UsageError("--recording-compression " + compression + ": a TUM RGB-D folder is not compressed");
  const bool bag = format == DepthRecordingFormat::RosBag;
  if (bag ? compression != "lz4" && compression != "bz2" : compression != "zstd" && compression != "lz4")
    throw UsageError("--recording-compression " + compression + ": a " +
                     (bag ? "bag takes lz4 or bz2" : "MCAP file takes zstd or lz4"));
}

}  // namespace

void addDepthGenerateOptions(CLI::App& command, DepthGenerateArgs& args) {
  DepthCameraConfig& camera = args.camera;
  const std::string group = "Depth camera (instead of the lidar)";
  args.depthOnly = {
      command.add_option("--depth-recording", args.recording,
                         "a depth camera's walk through the scene instead of a lidar run: a ROS 1 bag (.bag) or MCAP "
                         "file (.mcap) of 16UC1 images and CameraInfo with tf (map -> odom -> base_link -> "
                         "camera_depth_optical_frame), or else a TUM RGB-D folder (depth/*.png, depth.txt, "
                         "groundtruth.txt, camera_info.yaml), with colour images too under --color; --seed, --scene, --speed (default 0.5 here), --height (of the "
                         "camera, default 1.3), --rate (frames per second), --start-time, --threads and "
                         "--recording-compression apply to it too")
          ->type_name("OUT.bag|OUT.mcap|FOLDER/")
          ->group(group),
      command.add_flag("--color", camera.colour,
                       "with --depth-recording: a colour image registered to each depth image (the same camera and "
                       "size; each kind of surface its own colour with a 0.5 m checker): rgb8 sensor_msgs/Image on "
                       "/camera/color/image_raw at the depth image's stamp in a bag or MCAP file, rgb/*.png and rgb.txt "
                       "in a TUM RGB-D folder; read back by voxen map --tsdf --color. With --truth-mesh: red, green, "
                       "blue per vertex, each surface's colour without the checker")
          ->group(group),
      command.add_option("--truth-mesh", args.truthMesh,
                         "the scene's true surface as a binary PLY mesh (every primitive; curves within 1 mm)")
          ->type_name("OUT.ply")
          ->group(group),
      command.add_option("--frames", camera.frames, "depth frames to render")
          ->check(integerIn(1, 1000000))
          ->capture_default_str()
          ->group(group),
      command.add_option("--depth-width", camera.width, "depth image width (pixels)")
          ->check(integerIn(1, 8192))
          ->capture_default_str()
          ->group(group),
      command.add_option("--depth-height", camera.height, "depth image height (pixels)")
          ->check(integerIn(1, 8192))
          ->capture_default_str()
          ->group(group),
      command.add_option("--hfov", camera.horizontalFovDeg, "horizontal field of view (degrees; square pixels)")
          ->check(numberIn(0.0, 170.0, "degrees", LowEnd::Open, HighEnd::Open))
          ->capture_default_str()
          ->group(group),
      command.add_option("--depth-noise", camera.depthNoiseStdDev, "Gaussian depth noise, standard deviation (metres)")
          ->check(numberIn(0.0, 10.0, "metres"))
          ->capture_default_str()
          ->group(group),
      command.add_option("--max-depth", camera.maxDepth, "no measurement beyond this depth (metres; from 0.2 m)")
          ->check(numberIn(0.2, 65.0, "metres", LowEnd::Open))
          ->capture_default_str()
          ->group(group),
  };
  for (const char* flag : kLidarOnlyFlags) args.lidarOnly.push_back(command.get_option(flag));
  args.speed = command.get_option("--speed");
  args.height = command.get_option("--height");
  args.rate = command.get_option("--rate");
}

bool isDepthRun(const DepthGenerateArgs& args) {
  return std::any_of(args.depthOnly.begin(), args.depthOnly.end(), [](const CLI::Option* o) { return o->count() > 0; });
}

int generateDepth(const CommonOptions& options, const DepthGenerateArgs& args, const SharedGenerateValues& shared) {
  if (args.recording.empty() && args.truthMesh.empty())
    throw UsageError("the depth camera's flags need --depth-recording OUT.bag|OUT.mcap|FOLDER/ or --truth-mesh OUT.ply");
  refuseLidarFlags(args);
  const DepthCameraConfig camera = cameraFrom(args, shared);
  const bool folder = !args.recording.empty() && depthRecordingFormat(args.recording) == DepthRecordingFormat::TumFolder;
  checkCompression(args.recording, shared.compression);
  checkOutputs({{"--depth-recording", folder ? "" : args.recording}, {"--truth-mesh", args.truthMesh}}, {});
  try {
    // One frame is held at a time: its 16-bit image, two double depths and its colour per pixel.
    checkMemoryBudget(uint64_t(camera.width) * camera.height * (2 + 8 + 8 + (camera.colour ? 3 : 0)), options.memoryBudgetBytes(),
                      "one depth frame of --depth-width " + std::to_string(camera.width) + " x --depth-height " +
                          std::to_string(camera.height) + " pixels",
                      options.memoryBudgetHint() + " or lower --depth-width or --depth-height");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const SyntheticScene scene = depthScene(shared);
  if (scene.kind == SceneKind::Building && !(camera.cameraHeight < scene.options.ceilingHeight))
    throw UsageError("--height: the camera must be below the " + formatNumber(scene.options.ceilingHeight) +
                     " m ceiling, got " + formatNumber(camera.cameraHeight));
  const CameraIntrinsics k = camera.intrinsics();
  if (!options.json && !args.recording.empty()) {
    std::printf("depth camera: %u x %u, fx = fy = %.3f, %d frames at %g Hz, speed %g m/s, height %g m, depth %g to %g m, "
                "noise %g m\n",
                camera.width, camera.height, k.fx, camera.frames, camera.rateHz, camera.speed, camera.cameraHeight,
                camera.minDepth, camera.maxDepth, camera.depthNoiseStdDev);
    std::fflush(stdout);
  }

  uint64_t meshBytes = 0;
  size_t triangles = 0;
  if (!args.truthMesh.empty()) {
    const TriangleMesh mesh = sceneTruthMesh(scene, 0.001, camera.colour);
    triangles = mesh.triangles.size();
    meshBytes = writeMeshPly(args.truthMesh, mesh);
  }
  DepthRecordingSummary s;
  if (!args.recording.empty()) {
    DepthRecordingOptions recording;
    recording.compression = shared.compression;
    const bool tty = ::isatty(STDERR_FILENO);
    double lastReport = 0.0;
    bool reported = false;
    s = writeDepthRecording(scene, camera, args.recording, recording,
                            [&](const GeneratedDepthFrame& f, const DepthRecordingSummary& so) {
      if (so.seconds - lastReport < 1.0 && f.index + 1 != camera.frames) return;
      if (!reported && f.index + 1 == camera.frames) return;  // short runs: no progress lines
      lastReport = so.seconds;
      reported = true;
      std::fprintf(stderr, "%s  frame %d/%d, %.2f Mpixels/s%s", tty ? "\r" : "", f.index + 1, camera.frames,
                   double(so.frames) * camera.width * camera.height / std::max(so.seconds, 1e-9) / 1e6, tty ? "" : "\n");
      std::fflush(stderr);
    });
    if (reported && tty) std::fprintf(stderr, "\n");
  }
  const std::string format = args.recording.empty() ? "" : depthRecordingFormatName(depthRecordingFormat(args.recording));
  if (options.json) {
    printJson({{"depth_recording", args.recording}, {"format", format}, {"truth_mesh", args.truthMesh},
               {"seed", shared.seed}, {"scene", shared.scene}, {"frames", s.frames}, {"width", camera.width},
               {"height", camera.height}, {"fx", k.fx}, {"fy", k.fy}, {"cx", k.cx}, {"cy", k.cy},
               {"valid_pixels", s.validPixels}, {"color_images", s.colourImages}, {"transforms", s.transforms}, {"bytes", s.bytes},
               {"triangles", triangles}, {"mesh_bytes", meshBytes}, {"seconds", rounded(s.seconds, 3)}});
    return 0;
  }
  if (!args.recording.empty())
    std::printf("wrote %s (%s): %s depth frames of %u x %u%s, %s measured pixels, %s tf transforms, %.1f MB in %.2f s\n",
                args.recording.c_str(), format.c_str(), withCommas(s.frames).c_str(), camera.width, camera.height,
                s.colourImages > 0 ? " with colour" : "", withCommas(s.validPixels).c_str(), withCommas(s.transforms).c_str(),
                s.bytes / 1e6, s.seconds);
  if (!args.truthMesh.empty())
    std::printf("wrote %s: the scene's true surface, %s triangles%s (binary PLY, %.1f MB)\n", args.truthMesh.c_str(),
                withCommas(triangles).c_str(), camera.colour ? " with vertex colours" : "", meshBytes / 1e6);
  return 0;
}

}  // namespace voxen::cli

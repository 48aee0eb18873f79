#include "voxen/testdata/depth_camera.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>

#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/thread_start.hpp"
#include "voxen/testdata/scene_colours.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace voxen {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

void require(bool ok, const char* field, const char* words, const std::string& range, const std::string& got) {
  if (!ok)
    throw SettingError(SettingError::Kind::Invalid, std::string("DepthCameraConfig::") + field, words,
                       "depth camera: {} must be " + range + ", got " + got);
}

bool finite(double v) { return std::isfinite(v); }

// Gaussian noise from a counter (Box-Muller over two splitmix draws): the same pixel of the
// same frame always gets the same value, whichever thread renders it.
double gaussianFor(uint64_t seed, uint64_t frame, uint64_t pixel) {
  SplitMix h(seed ^ 0xD3E7C0DE5EEDull);
  SplitMix g(h.next() ^ (frame * 0x9E3779B97F4A7C15ull));
  SplitMix p(g.next() ^ pixel);
  const uint64_t a = p.next(), b = p.next();
  const double u1 = (double(a >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = double(b >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

glm::dquat fromColumns(const glm::dvec3& x, const glm::dvec3& y, const glm::dvec3& z) {
  return glm::normalize(glm::quat_cast(glm::dmat3(x, y, z)));
}

}  // namespace

void DepthCameraConfig::validate() const {
  require(width >= 1 && width <= 8192, "width", "the image width", "from 1 to 8192 pixels", std::to_string(width));
  require(height >= 1 && height <= 8192, "height", "the image height", "from 1 to 8192 pixels", std::to_string(height));
  require(horizontalFovDeg > 0.0 && horizontalFovDeg < 170.0, "horizontalFovDeg", "the horizontal field of view",
          "in (0, 170) degrees", formatNumber(horizontalFovDeg));
  require(frames >= 0, "frames", "the frame count", "at least 0", std::to_string(frames));
  require(rateHz > 0.0 && finite(rateHz), "rateHz", "the frame rate", "a positive number of Hz", formatNumber(rateHz));
  require(speed >= 0.0 && finite(speed), "speed", "the speed", "a non-negative number of m/s", formatNumber(speed));
  require(finite(startTime), "startTime", "the start time", "finite", formatNumber(startTime));
  require(finite(startDistance), "startDistance", "the start distance", "finite", formatNumber(startDistance));
  require(cameraHeight > 0.0 && finite(cameraHeight), "cameraHeight", "the camera height", "a positive number of metres",
          formatNumber(cameraHeight));
  require(pitchDeg >= -89.0 && pitchDeg <= 89.0, "pitchDeg", "the camera pitch", "in [-89, 89] degrees",
          formatNumber(pitchDeg));
  require(sweepDeg >= 0.0 && sweepDeg <= 180.0, "sweepDeg", "the yaw sweep", "in [0, 180] degrees", formatNumber(sweepDeg));
  require(sweepPeriod > 0.0 && finite(sweepPeriod), "sweepPeriod", "the sweep period", "a positive number of seconds",
          formatNumber(sweepPeriod));
  require(minDepth >= 0.0 && finite(minDepth), "minDepth", "the minimum depth", "a non-negative number of metres",
          formatNumber(minDepth));
  require(maxDepth > minDepth && maxDepth <= 65.0, "maxDepth", "the maximum depth",
          "above the minimum depth and at most 65 m (16-bit millimetres)", formatNumber(maxDepth));
  require(depthNoiseStdDev >= 0.0 && finite(depthNoiseStdDev), "depthNoiseStdDev", "the depth noise",
          "a non-negative number of metres", formatNumber(depthNoiseStdDev));
}

CameraIntrinsics DepthCameraConfig::intrinsics() const {
  CameraIntrinsics k;
  k.width = width;
  k.height = height;
  k.fx = k.fy = (double(width) / 2.0) / std::tan(horizontalFovDeg * kDeg / 2.0);
  k.cx = (double(width) - 1.0) / 2.0;
  k.cy = (double(height) - 1.0) / 2.0;
  return k;
}

TrajectorySample depthCameraMount(const DepthCameraConfig& config) {
  // The optical axes in base_link (x forward, y left, z up): z forward pitched down, x right,
  // y down, so the optical frame is right-handed.
  const double p = config.pitchDeg * kDeg;
  const glm::dvec3 forward(std::cos(p), 0.0, -std::sin(p));
  const glm::dvec3 right(0.0, -1.0, 0.0);
  const glm::dvec3 down = glm::cross(forward, right);
  TrajectorySample mount;
  mount.position = glm::dvec3(0.0, 0.0, config.cameraHeight);
  mount.orientation = fromColumns(right, down, forward);
  return mount;
}

TrajectorySample depthCameraBasePose(const SyntheticScene& scene, const DepthCameraConfig& config, double time) {
  const double tau = time - config.startTime;
  double heading = 0.0;
  const glm::dvec2 p = scene.pathPosition(config.startDistance + config.speed * tau, &heading);
  const double yaw = heading + config.sweepDeg * kDeg * std::sin(2.0 * kPi * tau / config.sweepPeriod);
  return {time, glm::dvec3(p.x, p.y, 0.0), glm::angleAxis(yaw, glm::dvec3(0.0, 0.0, 1.0))};
}

TrajectorySample depthCameraPose(const SyntheticScene& scene, const DepthCameraConfig& config, double time) {
  const TrajectorySample base = depthCameraBasePose(scene, config, time);
  const TrajectorySample mount = depthCameraMount(config);
  return {time, base.position + base.orientation * mount.position, glm::normalize(base.orientation * mount.orientation)};
}

glm::dvec3 pixelDirection(const CameraIntrinsics& camera, double u, double v) {
  return {(u - camera.cx) / camera.fx, (v - camera.cy) / camera.fy, 1.0};
}

void generateDepthFrames(const SyntheticScene& scene, const DepthCameraConfig& config,
                         const std::function<void(const GeneratedDepthFrame&)>& onFrame) {
  config.validate();
  if (scene.kind == SceneKind::Building && !(config.cameraHeight < scene.options.ceilingHeight))
    throw SettingError(SettingError::Kind::Invalid, "DepthCameraConfig::cameraHeight", "the camera height",
                       "depth camera: {} must be below the " + formatNumber(scene.options.ceilingHeight) +
                           " m ceiling, got " + formatNumber(config.cameraHeight));
  const CameraIntrinsics camera = config.intrinsics();
  const uint32_t width = config.width, height = config.height;
  unsigned threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>({threads, height, 256u});

  GeneratedDepthFrame out;
  out.frame.intrinsics = camera;
  out.frame.depth.width = width;
  out.frame.depth.height = height;
  out.frame.depth.encoding = DepthEncoding::Unsigned16;
  out.frame.depth.depthScale = 0.001;
  out.frame.depth.depth16.assign(size_t(width) * height, 0);
  out.trueDepth.assign(size_t(width) * height, 0.0);
  out.measuredDepth.assign(size_t(width) * height, 0.0);
  if (config.colour) out.frame.colour = ColourImage{width, height, std::vector<uint8_t>(size_t(width) * height * 3, 0)};
  uint8_t* const colour = config.colour ? out.frame.colour->rgb.data() : nullptr;
  std::vector<size_t> valid(threads);
  for (int f = 0; f < config.frames; ++f) {
    out.index = f;
    out.stampNs = std::llround(config.frameTime(f) * 1e9);
    const double time = double(out.stampNs / 1000000000) + double(out.stampNs % 1000000000) * 1e-9;
    const TrajectorySample pose = depthCameraPose(scene, config, time);
    out.basePose = depthCameraBasePose(scene, config, time);
    out.frame.time = time;
    out.frame.position = pose.position;
    out.frame.orientation = pose.orientation;
    const glm::dmat3 rotation = glm::mat3_cast(pose.orientation);
    auto work = [&](unsigned worker) {
      const uint32_t r0 = uint32_t(uint64_t(height) * worker / threads), r1 = uint32_t(uint64_t(height) * (worker + 1) / threads);
      size_t count = 0;
      for (uint32_t v = r0; v < r1; ++v) {
        for (uint32_t u = 0; u < width; ++u) {
          const size_t i = size_t(v) * width + u;
          const glm::dvec3 local = pixelDirection(camera, double(u), double(v));
          const double length = glm::length(local);  // metres along the ray per metre of z
          const glm::dvec3 direction = rotation * (local / length);
          double z = 0.0;
          const auto hit = scene.raycastHit(pose.position, direction, config.maxDepth * length);
          if (hit) z = hit->distance / length;
          if (z < config.minDepth || z > config.maxDepth) z = 0.0;
          if (colour) {
            std::array<uint8_t, 3> rgb{0, 0, 0};
            if (z > 0.0)
              rgb = surfaceColour(surfaceOf(scene, *hit), pose.position + direction * (hit->distance + kColourInset));
            std::copy(rgb.begin(), rgb.end(), colour + 3 * i);
          }
          double measured = z;
          if (z > 0.0 && config.depthNoiseStdDev > 0.0) {
            measured = z + config.depthNoiseStdDev * gaussianFor(config.seed, uint64_t(f), uint64_t(i));
            if (measured < config.minDepth || measured > config.maxDepth) measured = 0.0;
          }
          const double mm = std::round(measured * 1000.0);
          out.trueDepth[i] = z;
          out.measuredDepth[i] = measured;
          out.frame.depth.depth16[i] = uint16_t(std::clamp(mm, 0.0, 65535.0));
          count += out.frame.depth.depth16[i] != 0;
        }
      }
      valid[worker] = count;
    };
    // Worker w takes the w-th band of rows; the calling thread takes band 0 and the bands of
    // any worker the system did not grant, so the frame is the same either way.
    std::vector<std::thread> pool;
    const unsigned started =
        threads > 1 ? startThreads(pool, threads - 1, "depth camera", [&](unsigned i) { work(i + 1); }) : 0;
    work(0);
    for (unsigned w = started + 1; w < threads; ++w) work(w);
    for (auto& thread : pool) thread.join();
    out.validPixels = 0;
    for (size_t n : valid) out.validPixels += n;
    onFrame(out);
  }
}

}  // namespace voxen

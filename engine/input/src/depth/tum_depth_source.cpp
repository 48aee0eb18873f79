// Depth frames from a TUM RGB-D folder: depth.txt's images (16-bit PNGs, 5000 units a metre),
// posed by groundtruth.txt interpolated at each image's time, with the camera from a
// camera_calibration YAML file; with colour asked for, rgb.txt's image nearest each depth
// image's time (colour/tum_colour.hpp).
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "colour/tum_colour.hpp"
#include "depth/camera_yaml.hpp"
#include "depth/depth_source_impl.hpp"
#include "depth/tum_list.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/depth_decode.hpp"
#include "voxen/input/input_file.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

std::vector<TumImage> readTumList(const std::filesystem::path& file) {
  std::ifstream in = openInputFile(file, "TUM RGB-D image list");
  std::vector<TumImage> out;
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    std::string time, name;
    fields >> time >> name;
    char* end = nullptr;
    const double t = std::strtod(time.c_str(), &end);
    if (end == time.c_str() || *end != '\0' || !std::isfinite(t) || name.empty())
      throw Error(file.string() + ":" + std::to_string(number) + ": '" + line +
                  "' is not 'timestamp filename' (a TUM RGB-D list line)");
    out.push_back({t, name, number});
  }
  return out;
}

namespace {

constexpr double kTumDepthScale = 1.0 / 5000.0;

class TumDepthSource final : public DepthSource::Impl {
 public:
  TumDepthSource(const std::filesystem::path& folder, const DepthSourceOptions& options)
      : folder_(folder), maxRange_(options.maxRange) {
    if (!(options.maxRange >= 0))
      throw SettingError(SettingError::Kind::Invalid, "DepthSourceOptions::maxRange", "maximum range",
                         "{} must be 0 (none) or positive, got " + formatNumber(options.maxRange));
    const std::string name = folder.string();
    if (!options.depthTopic.empty() || !options.cameraInfoTopic.empty() || !options.fixedFrame.empty())
      throw Error(name + ": is a TUM RGB-D folder: the depth and camera_info topics and the fixed frame are a "
                  "recording's; its images are depth.txt's and its poses groundtruth.txt's");
    if (!std::filesystem::is_regular_file(folder / "depth.txt"))
      throw Error(name + ": has no depth.txt: a TUM RGB-D folder lists its depth images in depth.txt "
                  "('timestamp filename' lines, e.g. '1305031102.160407 depth/1305031102.160407.png')");
    images_ = readTumList(folder / "depth.txt");
    if (images_.empty()) throw Error(name + "/depth.txt: lists no depth image");
    // The camera: the file given, else a camera_info.yaml in the folder (as Voxen's generator
    // writes one; the TUM sequences carry none).
    std::filesystem::path cameraFile = options.cameraInfoFile;
    if (cameraFile.empty() && std::filesystem::is_regular_file(folder / "camera_info.yaml")) cameraFile = folder / "camera_info.yaml";
    if (cameraFile.empty())
      throw SettingError(SettingError::Kind::Change, "DepthSourceOptions::cameraInfoFile", "camera calibration file",
                         name + ": a TUM RGB-D folder carries no camera calibration: give one as {} (a ROS "
                         "camera_calibration YAML file: image_width, image_height, camera_matrix, ...)");
    const ros::CameraInfo cameraInfo = loadCameraYaml(cameraFile);
    camera_ = makeDepthCamera(cameraInfo, cameraFile.string());
    const std::filesystem::path truth = folder / "groundtruth.txt";
    if (!std::filesystem::is_regular_file(truth))
      throw Error(name + ": has no groundtruth.txt ('timestamp tx ty tz qx qy qz qw' lines) to pose the depth images by");
    trajectory_ = Trajectory::load(truth);
    if (!trajectory_.hasOrientation())
      throw Error(truth.string() + ": has no orientations (its lines must be 'timestamp tx ty tz qx qy qz qw')");

    info.format = "TUM RGB-D folder";
    info.encoding = "16-bit PNG, 1/5000 m";
    info.cameraInfo = cameraFile.string();
    info.distortion = camera_.distortion;
    info.poses = truth.string() + " (" + countText(trajectory_.size(), "pose") + ")";
    info.intrinsics = camera_.intrinsics;
    info.images = images_.size();
    info.poseStart = trajectory_.startTime();
    info.poseEnd = trajectory_.endTime();
    if (options.colour()) {
      colour_.emplace(folder, options, camera_, folder / images_.front().file);
      colour_->describe(info);
    }
  }

  bool next(DepthFrame& frame) override {
    while (k_ < images_.size()) {
      const TumImage& entry = images_[k_++];
      const double t = entry.time;
      if (stats.frames > 0 && t < lastTime_) {
        ++stats.skippedBackwards;
        continue;
      }
      if (!trajectory_.contains(t)) {
        ++stats.skippedOutsidePoses;
        continue;
      }
      const std::filesystem::path file = folder_ / entry.file;
      const std::string at = (folder_ / "depth.txt").string() + ":" + std::to_string(entry.line) + ": " + file.string();
      const std::vector<uint8_t> bytes = readInputFile(file, "depth image");
      DepthImage image;
      image.encoding = DepthEncoding::Unsigned16;
      image.depthScale = kTumDepthScale;
      image.depth16 = decodePng16(bytes, at, image.width, image.height);
      applyDepthCamera(camera_, image, at);
      stats.pixelsBeyondMaxRange += applyMaxRange(image, maxRange_);
      frame.time = t;
      frame.depth = std::move(image);
      frame.intrinsics = camera_.intrinsics;
      frame.position = trajectory_.positionAt(t);
      frame.orientation = trajectory_.orientationAt(t);
      frame.colour.reset();
      if (colour_) {
        frame.colour = colour_->at(t);
        ++(frame.colour ? stats.framesWithColour : stats.framesWithoutColour);
      }
      lastTime_ = t;
      ++stats.frames;
      return true;
    }
    return false;
  }

 private:
  std::filesystem::path folder_;
  std::vector<TumImage> images_;
  DepthCamera camera_;
  Trajectory trajectory_;
  std::optional<TumColour> colour_;  // after camera_, which it refers to
  double maxRange_ = 0.0, lastTime_ = 0.0;
  size_t k_ = 0;
};

}  // namespace

std::unique_ptr<DepthSource::Impl> openTumDepth(const std::filesystem::path& path, const DepthSourceOptions& options) {
  return std::make_unique<TumDepthSource>(path, options);
}

}  // namespace voxen::detail

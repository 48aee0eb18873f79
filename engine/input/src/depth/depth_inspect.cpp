#include "depth/depth_inspect.hpp"

#include <cctype>

#include "depth/camera_yaml.hpp"
#include "voxen/input/colour_decode.hpp"
#include "depth/depth_topics.hpp"
#include "depth/tum_list.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/input/depth_decode.hpp"
#include "voxen/input/input_file.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

namespace {

// Why a depth source would not read a colour topic ("" when it would).
std::string colourNote(const ImageTopic& t, const std::vector<ImageTopic>& images) {
  if (!t.error.empty()) return t.error;
  if (t.compressed && t.width == 0) {
    std::string format = t.encoding;
    for (char& c : format) c = char(std::tolower(static_cast<unsigned char>(c)));
    return format.find("jp") != std::string::npos ? "JPEG: not read (no JPEG decoder among Voxen's dependencies)"
                                                  : "neither PNG nor JPEG: not read";
  }
  if (!t.compressed && !t.colour) return "encoding not read as colour (" + std::string(kColourEncodings) + ")";
  bool sized = false, anyDepth = false;
  std::string depthSize;
  for (const ImageTopic& d : images) {
    if (!d.depth) continue;
    anyDepth = true;
    sized = sized || (d.width == t.width && d.height == t.height);
    if (depthSize.empty()) depthSize = std::to_string(d.width) + " x " + std::to_string(d.height);
  }
  if (anyDepth && !sized) return "not the depth images' size (" + depthSize + "): not read as their colour";
  if (!t.compressed && !isChosenColourEncoding(t.encoding)) return "read as colour when named, never chosen by itself";
  return "";
}

const char* pngColourName(int colourType) {
  switch (colourType) {
    case 0: return "grey";
    case 2: return "RGB";
    case 3: return "palette";
    case 4: return "grey+alpha";
    default: return "RGBA";
  }
}

void describeColourTopics(Recording& rec, const std::vector<ImageTopic>& images, RecordingInfo& info) {
  for (const ImageTopic& t : images) {
    if (t.depth) continue;
    const RecordingTopic& topic = rec.topics()[t.topic];
    info.colourTopics.push_back({topic.name, topic.type, t.encoding, t.width, t.height, topic.messages, colourNote(t, images)});
  }
}

}  // namespace

void describeDepthTopics(Recording& rec, RecordingInfo& info) {
  std::vector<ImageTopic> images;
  try {
    images = describeImageTopics(rec);
  } catch (const Error& e) {
    info.notes.push_back(std::string("depth images: ") + e.what());
    return;
  }
  for (const ImageTopic& t : images) {
    if (!t.depth) continue;
    const RecordingTopic& topic = rec.topics()[t.topic];
    RecordingInfo::DepthTopic d{topic.name, topic.type, t.encoding, t.width, t.height, topic.messages, {}};
    try {
      const uint32_t cameraTopic = chooseCameraInfoTopic(rec, topic.name, t.compressed, "");
      const std::string cameraName = rec.topics()[cameraTopic].name;
      const ros::CameraInfo camera = readCameraInfo(rec, cameraTopic);
      d.cameraInfo = cameraName + ": " + cameraInfoText(camera);
      try {
        const DepthCamera used = makeDepthCamera(camera, rec.path().string() + ": topic " + cameraName);
        const CameraIntrinsics& k = used.intrinsics;
        if (used.remaps())
          d.cameraInfo += "; undistorted to fx " + formatNumber(k.fx) + " fy " + formatNumber(k.fy) + " cx " +
                          formatNumber(k.cx) + " cy " + formatNumber(k.cy);
      } catch (const Error& e) {
        d.cameraInfo += std::string("; not usable: ") + e.what();
      }
    } catch (const Error& e) {
      d.cameraInfo = e.what();
    }
    info.depthTopics.push_back(std::move(d));
  }
  describeColourTopics(rec, images, info);
}

void inspectTumFolder(const std::filesystem::path& path, RecordingInfo& info) {
  const std::string name = path.string();
  info.withoutTrajectory = name + ": is a TUM RGB-D folder: depth images for a TSDF, not points";
  if (!std::filesystem::is_regular_file(path / "depth.txt")) {
    info.layout = "no depth.txt";
    info.notes.push_back(name + ": has no depth.txt, which lists a TUM RGB-D folder's depth images");
    return;
  }
  const std::vector<TumImage> depth = readTumList(path / "depth.txt");
  info.layout = countText(depth.size(), "depth image");
  RecordingInfo::DepthTopic d{"depth.txt", "TUM RGB-D depth images", "16-bit PNG, 1/5000 m", 0, 0, depth.size(),
                              "none in the folder: the camera comes from a camera_calibration YAML file"};
  if (!depth.empty()) {
    double lo = depth.front().time, hi = lo;
    for (const TumImage& image : depth) lo = std::min(lo, image.time), hi = std::max(hi, image.time);
    info.times = std::pair(lo, hi);
    const std::filesystem::path first = path / depth.front().file;
    try {
      const std::vector<uint8_t> bytes = readInputFile(first, "depth image");
      int bitDepth = 0, colour = 0;
      if (!pngSize(bytes, d.width, d.height, bitDepth, colour))
        info.notes.push_back(first.string() + ": is not a PNG");
      else if (bitDepth != 16 || colour != 0)
        info.notes.push_back(first.string() + ": is a " + std::to_string(bitDepth) + "-bit PNG of colour type " +
                             std::to_string(colour) + ", not 16-bit grey");
    } catch (const Error& e) {
      info.notes.push_back(e.what());
    }
  }
  if (std::filesystem::is_regular_file(path / "camera_info.yaml")) {
    try {
      d.cameraInfo = "camera_info.yaml: " + cameraInfoText(loadCameraYaml(path / "camera_info.yaml"));
    } catch (const Error& e) {
      d.cameraInfo = e.what();
    }
  }
  info.depthTopics.push_back(std::move(d));
  if (std::filesystem::is_regular_file(path / "groundtruth.txt")) {
    try {
      const Trajectory truth = Trajectory::load(path / "groundtruth.txt");
      info.notes.push_back("groundtruth.txt: " + countText(truth.size(), "pose") + " from " + formatTime(truth.startTime()) +
                           " to " + formatTime(truth.endTime()) + " s" +
                           (truth.hasOrientation() ? "" : " (no orientations: depth images cannot be posed by it)"));
    } catch (const Error& e) {
      info.notes.push_back(e.what());
    }
  } else {
    info.notes.push_back("no groundtruth.txt: the depth images have no poses");
  }
  if (std::filesystem::is_regular_file(path / "rgb.txt")) {
    RecordingInfo::ColourTopic c{"rgb.txt", "TUM RGB-D colour images", "PNG", 0, 0, 0, ""};
    try {
      const std::vector<TumImage> rgb = readTumList(path / "rgb.txt");
      c.messages = rgb.size();
      if (!rgb.empty()) {
        const std::filesystem::path first = path / rgb.front().file;
        const std::vector<uint8_t> bytes = readInputFile(first, "colour image");
        int bitDepth = 0, colour = 0;
        if (!pngSize(bytes, c.width, c.height, bitDepth, colour))
          c.note = first.string() + ": is not a PNG";
        else
          c.encoding = std::to_string(bitDepth) + "-bit " + pngColourName(colour) + " PNG";
        const RecordingInfo::DepthTopic& dt = info.depthTopics.back();
        if (c.note.empty() && dt.width > 0 && (c.width != dt.width || c.height != dt.height))
          c.note = "not the depth images' size (" + std::to_string(dt.width) + " x " + std::to_string(dt.height) +
                   "): not read as their colour";
      }
    } catch (const Error& e) {
      c.note = e.what();
    }
    info.colourTopics.push_back(std::move(c));
  }
}

}  // namespace voxen::detail

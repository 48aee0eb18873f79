#include "tum_folder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "depth_png.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/colour_decode.hpp"

namespace voxen {

namespace {

std::string numbers(std::initializer_list<double> values) {
  std::string out;
  char text[40];
  for (double v : values) {
    std::snprintf(text, sizeof text, "%.17g", v);
    out += (out.empty() ? "" : ", ") + std::string(text);
  }
  return out;
}

std::string matrix(const char* name, int rows, int cols, std::initializer_list<double> values) {
  return std::string(name) + ":\n  rows: " + std::to_string(rows) + "\n  cols: " + std::to_string(cols) + "\n  data: [" +
         numbers(values) + "]\n";
}

}  // namespace

std::string tumTimestamp(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", seconds);
  return text;
}

std::string cameraInfoYaml(const CameraIntrinsics& k, const std::string& cameraName) {
  return "# The depth camera, in ROS camera_calibration's form. Depth PNGs: uint16, 5000 units per metre (TUM),\n"
         "# 0 where there is no measurement; pixel centres at integer coordinates.\n"
         "image_width: " + std::to_string(k.width) + "\nimage_height: " + std::to_string(k.height) +
         "\ncamera_name: " + cameraName + "\n" + matrix("camera_matrix", 3, 3, {k.fx, 0, k.cx, 0, k.fy, k.cy, 0, 0, 1}) +
         "distortion_model: plumb_bob\n" + matrix("distortion_coefficients", 1, 5, {0, 0, 0, 0, 0}) +
         matrix("rectification_matrix", 3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}) +
         matrix("projection_matrix", 3, 4, {k.fx, 0, k.cx, 0, 0, k.fy, k.cy, 0, 0, 0, 1, 0});
}

TumFolderWriter::TumFolderWriter(const std::filesystem::path& target, const CameraIntrinsics& camera)
    : target_(target.has_filename() ? target : target.parent_path()), camera_(camera) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(target_, ec);
  if (fs::exists(status) && (!fs::is_directory(status) || !fs::is_empty(target_, ec)))
    throw Error(target_.string() + ": a TUM RGB-D folder is written where there is nothing or an empty folder, and " +
                (fs::is_directory(status) ? "this folder is not empty" : "this is a file"));
  fs::path parent = target_.parent_path();
  if (parent.empty()) parent = ".";
  building_ = parent / ("." + target_.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(building_, ec);
  if (!fs::create_directories(building_ / "depth", ec) || ec)
    throw Error("cannot save TUM RGB-D folder to '" + target_.string() + "': cannot make " + building_.string() + ": " +
                ec.message());
  depthList_ = "# depth maps\n# file: '" + target_.filename().string() + "'\n# timestamp filename\n";
  rgbList_ = "# color images (registered to the depth images)\n# file: '" + target_.filename().string() +
             "'\n# timestamp filename\n";
  groundTruth_ = "# ground truth trajectory (the depth camera's optical frame: x right, y down, z forward)\n"
                 "# file: '" + target_.filename().string() + "'\n# timestamp tx ty tz qx qy qz qw\n";
}

TumFolderWriter::~TumFolderWriter() {
  if (closed_) return;
  std::error_code ec;
  std::filesystem::remove_all(building_, ec);
}

void TumFolderWriter::writeFile(const std::string& name, const std::string& bytes) {
  const std::filesystem::path path = building_ / name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int error = errno;
  if (f && std::fclose(f) != 0 && ok)
    throw Error("cannot save TUM RGB-D folder to '" + target_.string() + "': " + name + ": " + std::strerror(errno));
  if (!ok) throw Error("cannot save TUM RGB-D folder to '" + target_.string() + "': " + name + ": " + std::strerror(error));
  bytes_ += bytes.size();
}

void TumFolderWriter::frame(const GeneratedDepthFrame& f) {
  const DepthImage& image = f.frame.depth;
  std::vector<uint16_t> tum(image.pixels());
  for (size_t i = 0; i < tum.size(); ++i) {
    const double units = std::round(f.measuredDepth[i] * 5000.0);
    tum[i] = uint16_t(std::clamp(units, 0.0, 65535.0));
  }
  const std::string stamp = tumTimestamp(f.frame.time);
  const std::string name = "depth/" + stamp + ".png";
  writeFile(name, encodeGrey16Png(image.width, image.height, tum.data()));
  depthList_ += stamp + " " + name + "\n";
  if (f.frame.colour) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!colour_ && !fs::create_directories(building_ / "rgb", ec) && ec)
      throw Error("cannot save TUM RGB-D folder to '" + target_.string() + "': cannot make rgb/: " + ec.message());
    colour_ = true;
    const ColourImage& c = *f.frame.colour;
    const std::vector<uint8_t> png = detail::encodePngRgb8(c.rgb, c.width, c.height);
    const std::string rgbName = "rgb/" + stamp + ".png";
    writeFile(rgbName, std::string(png.begin(), png.end()));
    rgbList_ += stamp + " " + rgbName + "\n";
  }
  char line[320];
  const glm::dvec3& p = f.frame.position;
  const glm::dquat& q = f.frame.orientation;
  std::snprintf(line, sizeof line, "%s %.9f %.9f %.9f %.9f %.9f %.9f %.9f\n", stamp.c_str(), p.x, p.y, p.z, q.x, q.y, q.z,
                q.w);
  groundTruth_ += line;
}

uint64_t TumFolderWriter::close() {
  namespace fs = std::filesystem;
  writeFile("depth.txt", depthList_);
  if (colour_) writeFile("rgb.txt", rgbList_);
  writeFile("groundtruth.txt", groundTruth_);
  writeFile("camera_info.yaml", cameraInfoYaml(camera_, "depth"));
  std::error_code ec;
  if (fs::is_directory(target_, ec)) fs::remove(target_, ec);  // empty: checked when the writer started
  fs::rename(building_, target_, ec);
  if (ec) throw Error("cannot save TUM RGB-D folder to '" + target_.string() + "': " + ec.message());
  closed_ = true;
  return bytes_;
}

}  // namespace voxen

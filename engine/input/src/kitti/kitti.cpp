#include "voxen/input/kitti.hpp"

#include <glm/mat4x4.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "voxen/input/input_file.hpp"
#include "rigid_pose_checks.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

// 12 numbers, row-major 3x4, into a column-major glm matrix.
glm::dmat4 matrixFrom(const std::vector<double>& v) {
  glm::dmat4 m(1.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m[c][r] = v[size_t(r * 4 + c)];
  return m;
}

std::vector<double> numbers(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::vector<double> v;
  for (std::string w; in >> w;) {
    char* end = nullptr;
    const double x = std::strtod(w.c_str(), &end);
    if (*end != '\0' || !std::isfinite(x)) throw Error(where + ": not a finite number: '" + w + "'");
    v.push_back(x);
  }
  return v;
}

std::filesystem::path findPoses(const std::filesystem::path& folder) {
  if (std::filesystem::exists(folder / "poses.txt")) return folder / "poses.txt";
  const auto name = std::filesystem::absolute(folder).lexically_normal();
  const auto dataset = (name.has_filename() ? name : name.parent_path());
  const auto outside = dataset.parent_path().parent_path() / "poses" / (dataset.filename().string() + ".txt");
  if (std::filesystem::exists(outside)) return outside;
  throw Error(folder.string() + ": the KITTI sequence has no poses.txt (looked for " + (folder / "poses.txt").string() +
              " and " + outside.string() + ")");
}

}  // namespace

std::vector<glm::dmat4> readKittiPoses(const std::filesystem::path& path) {
  std::ifstream in = detail::openInputFile(path, "KITTI poses file");
  std::vector<glm::dmat4> poses;
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    const std::string where = path.string() + ":" + std::to_string(lineNo);
    const auto v = numbers(line, where);
    if (v.empty()) continue;
    if (v.size() != 12) throw Error(where + ": a pose has 12 numbers (3x4 row-major), this line has " + std::to_string(v.size()));
    poses.push_back(matrixFrom(v));
    if (const std::string problem = detail::rotationMatrixProblem(poses.back()); !problem.empty())
      throw Error(where + ": " + problem);
  }
  return poses;
}

KittiSequence loadKittiSequence(const std::filesystem::path& folder) {
  KittiSequence s;
  s.folder = folder;
  for (const auto& e : std::filesystem::directory_iterator(folder / "velodyne"))
    if (e.is_regular_file() && e.path().extension() == ".bin") s.scans.push_back(e.path());
  std::sort(s.scans.begin(), s.scans.end());
  for (const auto& scan : s.scans) {
    const uint64_t bytes = std::filesystem::file_size(scan);
    if (bytes % 16 != 0)
      throw Error(scan.string() + ": " + std::to_string(bytes) + " bytes is no whole number of 16-byte points "
                  "(float32 x, y, z, reflectance): the scan is truncated");
    s.points += bytes / 16;
  }

  s.calibFile = folder / "calib.txt";
  std::ifstream calib = detail::openInputFile(s.calibFile, "KITTI calibration file");
  std::optional<glm::dmat4> tr;
  std::string line;
  for (int lineNo = 1; std::getline(calib, line); ++lineNo) {
    if (line.rfind("Tr:", 0) != 0) continue;
    const std::string where = s.calibFile.string() + ":" + std::to_string(lineNo);
    const auto v = numbers(line.substr(3), where);
    if (v.size() != 12) throw Error(where + ": Tr has 12 numbers (3x4 row-major), this line has " + std::to_string(v.size()));
    tr = matrixFrom(v);
    if (const std::string problem = detail::rotationMatrixProblem(*tr); !problem.empty())
      throw Error(where + ": Tr: " + problem);
  }
  if (!tr) throw Error(s.calibFile.string() + ": no 'Tr:' line (the lidar's pose in camera 0's frame)");
  const glm::dmat4 trInverse = glm::inverse(*tr);

  s.posesFile = findPoses(folder);
  const auto cameraPoses = readKittiPoses(s.posesFile);
  if (cameraPoses.size() < s.scans.size())
    throw Error(s.posesFile.string() + ": " + std::to_string(cameraPoses.size()) + " poses for the " +
                std::to_string(s.scans.size()) + " scans in " + (folder / "velodyne").string());
  for (size_t i = 0; i < s.scans.size(); ++i) s.lidarPoses.push_back(trInverse * cameraPoses[i] * *tr);

  if (std::filesystem::exists(folder / "times.txt")) {
    s.timesFile = folder / "times.txt";
    std::ifstream times = detail::openInputFile(s.timesFile, "KITTI times file");
    for (int lineNo = 1; std::getline(times, line); ++lineNo) {
      const auto v = numbers(line, s.timesFile.string() + ":" + std::to_string(lineNo));
      if (v.empty()) continue;
      if (v.size() != 1) throw Error(s.timesFile.string() + ":" + std::to_string(lineNo) + ": one time a line, this line has " + std::to_string(v.size()));
      s.times.push_back(v[0]);
    }
    if (s.times.size() < s.scans.size())
      throw Error(s.timesFile.string() + ": " + std::to_string(s.times.size()) + " times for the " +
                  std::to_string(s.scans.size()) + " scans");
    s.times.resize(s.scans.size());
  } else {
    for (size_t i = 0; i < s.scans.size(); ++i) s.times.push_back(0.1 * double(i));
  }
  return s;
}

}  // namespace voxen

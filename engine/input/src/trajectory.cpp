#include "voxen/input/trajectory.hpp"

#include <glm/geometric.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "voxen/input/input_file.hpp"
#include "rigid_pose_checks.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void tokenize(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && !isBlank(line[i])) ++i;
    tokens.push_back(line.substr(start, i - start));
  }
}

// A finite or non-finite double, the whole token; false when it is not a number.
bool parseNumber(std::string_view token, double& value) {
  const char* first = token.data();
  const char* last = first + token.size();
  if (first != last && *first == '+') ++first;
  if (first == last) return false;
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ptr != last) return false;
  if (ec == std::errc::result_out_of_range) {
    value = std::strtod(std::string(first, last).c_str(), nullptr);
    return true;
  }
  return ec == std::errc();
}

const char* kColumnNames[] = {"time", "x", "y", "z", "qx", "qy", "qz", "qw"};

constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// Two poses at the same instant may repeat a pose (the later one wins), but a sensor cannot
// be in two places at once: positions further apart than this are an error.
constexpr double kSameTimeTolerance = 1e-3;  // metres

// A header names the columns: none of its words is a number. A first line that mixes words
// and numbers is a pose with a typo, not a header, and dropping it would silently shorten
// the trajectory.
bool isHeaderLine(const std::vector<std::string_view>& tokens) {
  double ignored = 0.0;
  return std::none_of(tokens.begin(), tokens.end(), [&](std::string_view t) { return parseNumber(t, ignored); });
}

}  // namespace

std::string formatTime(double seconds) {
  char text[40];
  std::snprintf(text, sizeof text, "%.15g", seconds);
  return text;
}

Trajectory::Trajectory(std::vector<TrajectoryPose> poses, bool hasOrientation)
    : poses_(std::move(poses)), hasOrientation_(hasOrientation) {
  for (size_t i = 0; i < poses_.size(); ++i) {
    const auto& p = poses_[i];
    if (!std::isfinite(p.time) || !std::isfinite(p.position.x) || !std::isfinite(p.position.y) ||
        !std::isfinite(p.position.z)) {
      throw Error("trajectory: pose " + std::to_string(i) + " has a non-finite time or position");
    }
    if (i > 0 && p.time < poses_[i - 1].time) {
      throw Error("trajectory: pose " + std::to_string(i) + " (time " + std::to_string(p.time) +
                  ") is earlier than pose " + std::to_string(i - 1) + " (time " + std::to_string(poses_[i - 1].time) +
                  "): poses must be sorted by time");
    }
    if (i > 0 && p.time == poses_[i - 1].time && glm::distance(p.position, poses_[i - 1].position) > kSameTimeTolerance) {
      throw Error("trajectory: poses " + std::to_string(i - 1) + " and " + std::to_string(i) + " have the same time " +
                  formatTime(p.time) + " but positions " + std::to_string(glm::distance(p.position, poses_[i - 1].position)) +
                  " m apart");
    }
  }
}

Trajectory Trajectory::load(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in = detail::openInputFile(path, "trajectory file");

  std::vector<TrajectoryPose> poses;
  std::vector<uint64_t> lines;  // the line of each pose
  std::string line;
  std::vector<std::string_view> tokens;
  uint64_t lineNo = 0;
  size_t columns = 0;
  bool firstContentLine = true;
  auto fail = [&](const std::string& why) { throw Error(name + ":" + std::to_string(lineNo) + ": " + why); };

  while (std::getline(in, line)) {
    ++lineNo;
    if (lineNo == 1 && line.starts_with(kUtf8ByteOrderMark)) line.erase(0, kUtf8ByteOrderMark.size());
    tokenize(line, tokens);
    if (tokens.empty() || tokens[0].front() == '#') continue;
    if (firstContentLine) {
      firstContentLine = false;
      double first = 0.0;
      if (!parseNumber(tokens[0], first)) {
        if (isHeaderLine(tokens)) continue;
        fail("neither a pose nor a header: column 1 (time) '" + std::string(tokens[0]) +
             "' is not a number, yet other columns are (a header line names its columns without numbers)");
      }
    }
    if (columns == 0) {
      if (tokens.size() != 4 && tokens.size() != 8) {
        fail("a trajectory line needs 4 columns (time x y z) or 8 (time x y z qx qy qz qw), found " +
             std::to_string(tokens.size()));
      }
      columns = tokens.size();
    } else if (tokens.size() != columns) {
      fail("expected " + std::to_string(columns) + " columns like the first pose (line " + std::to_string(lines.front()) +
           "), found " + std::to_string(tokens.size()));
    }
    double v[8];
    for (size_t i = 0; i < columns; ++i) {
      if (!parseNumber(tokens[i], v[i])) {
        fail("column " + std::to_string(i + 1) + " (" + kColumnNames[i] + "): '" + std::string(tokens[i]) +
             "' is not a number");
      }
      if (!std::isfinite(v[i])) {
        fail("column " + std::to_string(i + 1) + " (" + kColumnNames[i] + "): '" + std::string(tokens[i]) +
             "' is not finite");
      }
    }
    TrajectoryPose pose;
    pose.time = v[0];
    pose.position = {v[1], v[2], v[3]};
    if (columns == 8) {
      const glm::dquat q(v[7], v[4], v[5], v[6]);  // glm: (w, x, y, z)
      const double norm = glm::length(q);
      if (!(norm > 1e-12)) fail("the orientation quaternion is zero");
      // Printed quaternions are a little off unit length and are normalised; one far off is
      // not a rotation (detail::kRigidTolerance) and is refused rather than guessed at.
      if (const std::string problem = detail::quaternionProblem(q); !problem.empty()) fail(problem);
      pose.orientation = q / norm;
    }
    if (!poses.empty() && pose.time < poses.back().time) {
      fail("time " + std::string(tokens[0]) + " is earlier than the previous pose's time (line " +
           std::to_string(lines.back()) + "): the trajectory must be sorted by time");
    }
    if (!poses.empty() && pose.time == poses.back().time) {
      const double apart = glm::distance(pose.position, poses.back().position);
      if (apart > kSameTimeTolerance) {
        fail("this pose and the one on line " + std::to_string(lines.back()) + " have the same time " + formatTime(pose.time) +
             " but positions " + std::to_string(apart) + " m apart: a sensor is in one place at a time (duplicated "
             "or truncated time stamps?)");
      }
    }
    poses.push_back(pose);
    lines.push_back(lineNo);
  }
  if (in.bad()) throw Error(name + ": read error after line " + std::to_string(lineNo));
  if (poses.empty()) throw Error(name + ": the trajectory has no poses");
  Trajectory t;
  t.poses_ = std::move(poses);
  t.hasOrientation_ = columns == 8;
  return t;
}

double Trajectory::startTime() const {
  if (poses_.empty()) throw Error("trajectory: empty, it has no time span");
  return poses_.front().time;
}

double Trajectory::endTime() const {
  if (poses_.empty()) throw Error("trajectory: empty, it has no time span");
  return poses_.back().time;
}

size_t Trajectory::segment(double t, double& fraction) const {
  // First pose later than t; t >= front().time, so it is not the first.
  const auto after = std::upper_bound(poses_.begin(), poses_.end(), t,
                                      [](double value, const TrajectoryPose& p) { return value < p.time; });
  if (after == poses_.end()) {  // t == back().time
    fraction = 0.0;
    return poses_.size() - 1;
  }
  const size_t j = size_t(after - poses_.begin());
  const size_t i = j - 1;
  fraction = (t - poses_[i].time) / (poses_[j].time - poses_[i].time);  // times differ: t < time_j
  return i;
}

size_t Trajectory::segment(double t, double& fraction, size_t& hint) const {
  // Segment i holds t when time_i <= t < time_i+1: then i + 1 is the first pose later than
  // t, which is what the search above finds, and the fraction is computed the same way.
  const size_t n = poses_.size();
  for (size_t i = hint; i < hint + 2 && i + 1 < n; ++i) {
    if (poses_[i].time <= t && t < poses_[i + 1].time) {
      fraction = (t - poses_[i].time) / (poses_[i + 1].time - poses_[i].time);
      hint = i;
      return i;
    }
  }
  const size_t i = segment(t, fraction);
  hint = i;
  return i;
}

std::optional<glm::dvec3> Trajectory::tryPositionAt(double t, size_t& hint) const {
  if (!contains(t)) return std::nullopt;
  double a = 0.0;
  const size_t i = segment(t, a, hint);
  if (a == 0.0) return poses_[i].position;
  return poses_[i].position + (poses_[i + 1].position - poses_[i].position) * a;
}

std::optional<glm::dvec3> Trajectory::tryPositionAt(double t) const {
  if (!contains(t)) return std::nullopt;
  double a = 0.0;
  const size_t i = segment(t, a);
  if (a == 0.0) return poses_[i].position;
  return poses_[i].position + (poses_[i + 1].position - poses_[i].position) * a;
}

glm::dvec3 Trajectory::positionAt(double t) const {
  if (const auto p = tryPositionAt(t)) return *p;
  if (poses_.empty()) throw Error("trajectory: empty, cannot interpolate");
  throw Error("trajectory: time " + std::to_string(t) + " is outside the trajectory's span [" +
              std::to_string(poses_.front().time) + ", " + std::to_string(poses_.back().time) + "]");
}

glm::dquat Trajectory::orientationAt(double t) const {
  if (!contains(t)) {
    if (poses_.empty()) throw Error("trajectory: empty, cannot interpolate");
    throw Error("trajectory: time " + std::to_string(t) + " is outside the trajectory's span [" +
                std::to_string(poses_.front().time) + ", " + std::to_string(poses_.back().time) + "]");
  }
  double a = 0.0;
  const size_t i = segment(t, a);
  if (a == 0.0) return poses_[i].orientation;
  return glm::slerp(poses_[i].orientation, poses_[i + 1].orientation, a);
}

}  // namespace voxen

#pragma once
// A sensor trajectory: timed positions (and optionally orientations) that give each point of
// a cloud its sensor origin by linear interpolation in time.
//
// Text format: one pose per line, whitespace separated, `time x y z` or
// `time x y z qx qy qz qw`; every pose line has the same number of columns. The first line may
// be a header (none of its fields is a number; a first line mixing words and numbers is an
// error, not a header); a UTF-8 byte order mark before it is skipped; lines whose first
// non-blank character is '#' and blank lines are ignored. Times must not decrease; equal
// neighbours are allowed when their positions agree within 1 mm (the later pose wins at that
// instant), otherwise they are an error naming both lines. A quaternion (qx qy qz qw) is
// normalised when its squared length is within 0.01 of 1 (tf2's tolerance: printed
// quaternions are a little off); one further off is no rotation and an error naming the line.
#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace voxen {

struct TrajectoryPose {
  double time = 0.0;
  glm::dvec3 position{0.0};
  glm::dquat orientation{1.0, 0.0, 0.0, 0.0};  // identity unless the file has 8 columns
};

class Trajectory {
 public:
  Trajectory() = default;
  // Throws Error when a time is not finite, times decrease, or two poses at the same time
  // are more than 1 mm apart (naming the pose indices).
  explicit Trajectory(std::vector<TrajectoryPose> poses, bool hasOrientation = false);

  // Throws Error naming the file and the line for every malformed or out-of-order line.
  static Trajectory load(const std::filesystem::path& path);

  const std::vector<TrajectoryPose>& poses() const { return poses_; }
  bool empty() const { return poses_.empty(); }
  size_t size() const { return poses_.size(); }
  bool hasOrientation() const { return hasOrientation_; }

  // The time span [startTime, endTime]; Error when empty.
  double startTime() const;
  double endTime() const;
  bool contains(double t) const { return !poses_.empty() && t >= poses_.front().time && t <= poses_.back().time; }

  // Linear interpolation between the poses either side of t. Throws Error outside the span
  // (and for NaN); use contains() or tryPositionAt() to test first.
  glm::dvec3 positionAt(double t) const;
  std::optional<glm::dvec3> tryPositionAt(double t) const;
  // The same, bit for bit, searching from the segment the previous call found (`hint`, 0 at
  // first; updated): constant time for times that rise slowly, as a scan's points do.
  std::optional<glm::dvec3> tryPositionAt(double t, size_t& hint) const;
  // Spherical interpolation of the orientation (identity when the file had none).
  glm::dquat orientationAt(double t) const;

 private:
  // Index i of the segment [i, i + 1] holding t, with its fraction; t must be in the span.
  size_t segment(double t, double& fraction) const;
  // The same segment, tried first at hint and hint + 1.
  size_t segment(double t, double& fraction, size_t& hint) const;

  std::vector<TrajectoryPose> poses_;
  bool hasOrientation_ = false;
};

// A time as Voxen's messages print it: 15 significant digits ("%.15g"), enough to tell a
// nanosecond stamp's seconds apart and short for round values.
std::string formatTime(double seconds);

}  // namespace voxen

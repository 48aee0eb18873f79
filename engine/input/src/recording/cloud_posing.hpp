#pragma once
// One cloud's points posed into the fixed frame, as every recording's clouds are: decoded with
// the topic's layout, each point moved by the sensor's pose at its own time (deskew) or at the
// cloud's stamp, returns from the robot dropped in the sensor frame. Rows of 7 columns (x y z,
// time, origin x y z), 8 with intensity, for the ray pipeline (point_source.hpp). A recording's
// point source (recording_point_input.cpp) and a live stream's clouds (cloud_rays.cpp) both
// pose through this, so a cloud gives the same rays from a file and from the wire.
#include <optional>
#include <string>
#include <vector>

#include "point_source.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen::detail {

// The sensor's pose at a time: from tf, or from a trajectory file.
class Poser {
 public:
  explicit Poser(TfBuffer::Chain chain) : chain_(std::move(chain)) {}
  explicit Poser(Trajectory trajectory) : trajectory_(std::move(trajectory)) {}

  // Whether points are moved by the pose (tf, or a trajectory with orientations) or taken as
  // already in the fixed frame (a trajectory of positions only: only the origin comes from it).
  bool movesPoints() const { return chain_ || trajectory_->hasOrientation(); }

  std::optional<RigidPose> at(double t, size_t& hint) const {
    if (chain_) return chain_->at(t, hint);
    const auto position = trajectory_->tryPositionAt(t, hint);
    if (!position) return std::nullopt;
    return RigidPose{*position, trajectory_->hasOrientation() ? trajectory_->orientationAt(t) : glm::dquat(1, 0, 0, 0)};
  }
  double start() const { return chain_ ? chain_->start() : trajectory_->startTime(); }
  double end() const { return chain_ ? chain_->end() : trajectory_->endTime(); }

 private:
  std::optional<TfBuffer::Chain> chain_;
  std::optional<Trajectory> trajectory_;
};

class CloudPosing {
 public:
  CloudPosing(ros::CloudLayout layout, Poser poser, std::string sensorFrame, bool checkFrame, bool deskew,
              const SensorExclusion& exclusion)
      : layout_(std::move(layout)),
        poser_(std::move(poser)),
        sensorFrame_(std::move(sensorFrame)),
        checkFrame_(checkFrame),
        deskew_(deskew),
        exclusion_(exclusion) {}

  // Replaces `rows` with the cloud's points posed (see the top of this file) and returns
  // their number; points without a pose (their time outside the poses) are counted in
  // `skips`, and skips.orderTime is the cloud's stamp. Throws Error beginning with `at` (a
  // SettingError for a cloud in another frame than the sensor's, when checkFrame). Any
  // thread; clouds on several threads at once.
  size_t pose(const ros::PointCloud2& cloud, const std::string& at, std::vector<double>& rows, SourceSkips& skips) const;
  const ros::CloudLayout& layout() const { return layout_; }
  size_t columns() const { return layout_.hasIntensity ? 8 : 7; }

 private:
  ros::CloudLayout layout_;
  Poser poser_;
  std::string sensorFrame_;
  bool checkFrame_ = true, deskew_ = true;
  SensorExclusion exclusion_;
};

}  // namespace voxen::detail

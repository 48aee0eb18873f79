#pragma once
// A stream's sensor_msgs/PointCloud2 messages made into rays one cloud at a time, by the rules
// a recording's clouds follow (recording_point_input.cpp): the same fields and time reading
// (cloud_decoder.hpp), each point posed by tf at its own time (deskew) or at the cloud's stamp,
// returns from the robot dropped in the sensor frame, non-finite points and points without a
// pose skipped and counted. A live source (voxen/live) owns the tf, which grows as the stream
// goes: it resolves the chain when a cloud needs a newer one and hands it in.
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/tf_buffer.hpp"

namespace voxen::detail {

struct CloudRays {
  std::vector<Ray> rays;  // in the cloud's point order, skipped points left out
  RayLoadStats stats;     // its points, rays and skips (outside the poses: skippedOutsideTrajectory)
};

class CloudRayMaker {
 public:
  // `layout`: chosen from the topic's first cloud with points (ros::chooseCloudLayout).
  // `sensorFrame`: the clouds' frame (without a leading '/'); a later cloud in another frame is
  // an Error naming both.
  CloudRayMaker(ros::CloudLayout layout, std::string sensorFrame, bool deskew, const SensorExclusion& exclusion);

  // The latest time a point of `cloud` is expected to carry (its stamp, plus the largest offset
  // the first cloud showed when points carry times): the tf a cloud needs before it is posed.
  double latestPointTime(const ros::PointCloud2& cloud) const;
  // Replaces `out` with the cloud's rays, posed by `chain` (fixed frame <- sensor frame).
  // Throws Error beginning with `where` (fields differ from the layout's, another frame, a
  // short body). Any thread; const.
  void make(const ros::PointCloud2& cloud, const TfBuffer::Chain& chain, const std::string& where, CloudRays& out) const;
  const ros::CloudLayout& layout() const { return layout_; }

 private:
  ros::CloudLayout layout_;
  std::string sensorFrame_;
  bool deskew_ = true;
  SensorExclusion exclusion_;
};

}  // namespace voxen::detail

#pragma once
// A live cloud's rays, made as `voxen map` makes them from a recording: the topic's field
// layout chosen from its first two clouds with points (voxen/input/cloud_decoder.hpp: x y z,
// the time field and its unit and reference, intensity), then each cloud through the engine's
// CloudRayMaker (voxen/input/cloud_rays.hpp: the posing and ray rules of a recording's clouds,
// deskew, returns from the robot dropped, non-finite points and points outside tf skipped),
// and a cloud stamped before the one taken ahead of it skipped whole, as the file reader skips
// it. The same clouds in the same order give the same rays, bit for bit, so the node's map
// equals voxen map's of the bag.
//
// Threads: one object per mapping thread; not shared.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine_bridge.hpp"
#include "voxen/input/cloud_decoder.hpp"
#include "voxen/input/cloud_rays.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/tf_buffer.hpp"
#include "voxen/map/ray.hpp"

namespace voxen_ros {

// The engine's view of a cloud message (its data borrowed from the message).
voxen::ros::PointCloud2 cloudView(const CloudMessage& msg);
// As the engine's recording types hold a tf message's transform (frames as written).
voxen::ros::TransformStamped transformOf(const Transform& t);

// What making a cloud's rays did with its points.
struct PoseCounts {
  uint64_t rays = 0, nonFinite = 0, outsideTf = 0, inBox = 0, nearSensor = 0;
};

class CloudRays {
 public:
  CloudRays(std::string sensorFrame, bool deskew, voxen::SensorExclusion exclusion)
      : sensorFrameParam_(std::move(sensorFrame)), deskew_(deskew), exclusion_(exclusion) {}

  bool hasLayout() const { return maker_.has_value(); }
  const voxen::ros::CloudLayout& layout() const { return maker_->layout(); }
  // From the topic's first cloud with points and, when there is one, its second (which tells
  // offsets from absolute times near a clock's 0). Throws voxen::Error naming the cloud.
  void chooseLayout(const voxen::ros::PointCloud2& first, const std::string& where, const voxen::ros::PointCloud2* second);
  // The frame the clouds are in: the parameter, else the first cloud's header.frame_id.
  const std::string& sensorFrame() const { return sensorFrame_; }

  // The latest time a point of the cloud is posed at: tf must reach it before the cloud is made.
  double latestPointTime(const voxen::ros::PointCloud2& cloud) const { return maker_->latestPointTime(cloud); }

  // Whether the cloud goes back in time (stamped before the last cloud taken): skipped whole,
  // as the file reader skips it. Otherwise it becomes the last cloud taken.
  bool goesBack(double stamp);

  // The cloud's rays posed by `chain` into `rays` (replaced). Throws voxen::Error beginning
  // with `where` for a cloud that does not fit the layout or (without a sensor_frame
  // parameter) is in another frame than the first.
  PoseCounts make(voxen::ros::PointCloud2 cloud, const voxen::TfBuffer::Chain& chain, const std::string& where,
                  std::vector<voxen::Ray>& rays);

 private:
  std::string sensorFrameParam_, sensorFrame_;
  bool deskew_ = true;
  voxen::SensorExclusion exclusion_;
  std::optional<voxen::detail::CloudRayMaker> maker_;
  voxen::detail::CloudRays made_;
  std::optional<double> lastStamp_;
};

}  // namespace voxen_ros
